using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.Aspire.Hosting.Commands;

/// <summary>What the dashboard commands log in the resource's console log.</summary>
internal static partial class CommandLog
{
    [LoggerMessage(EventId = 1, Level = LogLevel.Information, Message = "Redrive of {Topic} from the dashboard: {Written} written, {Failed} failed")]
    public static partial void LogRedrive(this ILogger logger, string topic, long written, long failed);

    [LoggerMessage(EventId = 2, Level = LogLevel.Error, Message = "{Resource} failed to start")]
    public static partial void LogStartFailure(this ILogger logger, string resource, System.Exception exception);
}
