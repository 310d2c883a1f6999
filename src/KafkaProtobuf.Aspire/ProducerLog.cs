using System;
using Confluent.Kafka;
using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.Aspire;

/// <summary>librdkafka's log and client errors of the producers this integration builds, through <see cref="ILogger"/>.</summary>
internal static partial class ProducerLog
{
    public static void Librdkafka(ILogger logger, LogMessage message, string connectionName)
    {
        LogLevel level = Level(message.Level);
        if (logger.IsEnabled(level))
        {
            Librdkafka(logger, level, connectionName, message.Facility, message.Message);
        }
    }

    public static void ClientError(ILogger logger, Error error, string connectionName) =>
        ClientError(logger, error.IsFatal ? LogLevel.Critical : LogLevel.Warning, connectionName, error.Code, error.Reason);

    [LoggerMessage(EventId = 1, Message = "librdkafka ({ConnectionName}) {Facility}: {Text}")]
    private static partial void Librdkafka(ILogger logger, LogLevel level, string connectionName, string facility, string text);

    [LoggerMessage(EventId = 2, Message = "Kafka producer ({ConnectionName}) error {Code}: {Reason}")]
    private static partial void ClientError(ILogger logger, LogLevel level, string connectionName, ErrorCode code, string reason);

    private static LogLevel Level(SyslogLevel level) => level switch
    {
        SyslogLevel.Emergency or SyslogLevel.Alert or SyslogLevel.Critical => LogLevel.Critical,
        SyslogLevel.Error => LogLevel.Error,
        SyslogLevel.Warning => LogLevel.Warning,
        SyslogLevel.Notice or SyslogLevel.Info => LogLevel.Information,
        _ => LogLevel.Debug,
    };
}
