using System;
using System.Collections.Generic;
using System.Linq;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Diagnostics;
using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.Hosting.Consuming;

/// <summary>
/// What librdkafka calls back with, on the loop thread inside a consume (or on its own thread for errors and log
/// lines): partitions assigned, revoked or lost; commits; client errors; its own log lines, through
/// <see cref="ILogger"/> instead of stderr. Each goes to the log, the lag meter, the diagnostics and, for what the
/// consumer service must act on, its owner.
/// </summary>
internal sealed class ConsumerCallbacks<TKey, TValue>
{
    private readonly string _name;
    private readonly IConsumerOwner _owner;
    private readonly LagMeter<TKey, TValue> _lag;
    private readonly ILogger _logger;
    private readonly ConsumerDiagnostics _diagnostics;

    public ConsumerCallbacks(string name, IConsumerOwner owner, LagMeter<TKey, TValue> lag, ILogger logger, ConsumerDiagnostics diagnostics)
    {
        _name = name;
        _owner = owner;
        _lag = lag;
        _logger = logger;
        _diagnostics = diagnostics;
    }

    /// <summary>Sets every callback on the builder.</summary>
    public ConsumerBuilder<TKey, TValue> SetOn(ConsumerBuilder<TKey, TValue> builder) => builder
        .SetErrorHandler((_, error) => OnClientError(error))
        .SetPartitionsAssignedHandler((_, partitions) => OnAssigned(partitions))
        .SetPartitionsRevokedHandler((_, partitions) => OnRevoked(partitions, lost: false))
        .SetPartitionsLostHandler((_, partitions) => OnRevoked(partitions, lost: true))
        .SetOffsetsCommittedHandler((_, committed) => OnCommitted(committed))
        .SetLogHandler((_, message) => OnClientLog(message));

    private void OnAssigned(List<TopicPartition> partitions)
    {
        // Returning nothing: librdkafka starts each partition at the group's committed offset.
        ConsumerLog.Assigned(_logger, _name, new PartitionList(partitions));
        _diagnostics.Assigned(partitions);
    }

    private void OnRevoked(List<TopicPartitionOffset> partitions, bool lost)
    {
        List<TopicPartition> leaving = partitions.ConvertAll(p => p.TopicPartition);
        _lag.Revoked(leaving);
        ConsumerLog.Revoked(_logger, _name, lost ? "lost" : "revoked", new PartitionList(leaving));
        _owner.Revoked(leaving);
        _diagnostics.Revoked(leaving, lost);
    }

    private void OnCommitted(CommittedOffsets committed)
    {
        // Auto-commit retries with the offsets stored then; a failure only means records may be read again.
        Error error = committed.Error.IsError
            ? committed.Error
            : committed.Offsets.FirstOrDefault(o => o.Error.IsError)?.Error ?? committed.Error;
        if (error.IsError)
        {
            ConsumerLog.CommitFailed(_logger, _name, error.ToString());
        }

        _diagnostics.Committed(committed);
    }

    private void OnClientError(Error error)
    {
        _diagnostics.ClientError(error);
        if (error.IsFatal)
        {
            _owner.Failed("librdkafka reported a fatal error: " + error, null, outsideConsume: true);
        }
        else if (_logger.IsEnabled(LogLevel.Warning))
        {
            ConsumerLog.ClientError(_logger, _name, error.ToString());
        }
    }

    private void OnClientLog(LogMessage message)
    {
        LogLevel level = message.Level switch
        {
            SyslogLevel.Emergency or SyslogLevel.Alert or SyslogLevel.Critical => LogLevel.Critical,
            SyslogLevel.Error => LogLevel.Error,
            SyslogLevel.Warning => LogLevel.Warning,
            SyslogLevel.Notice or SyslogLevel.Info => LogLevel.Information,
            _ => LogLevel.Debug,
        };
        ConsumerLog.Librdkafka(_logger, level, _name, message.Facility, message.Message);
    }
}
