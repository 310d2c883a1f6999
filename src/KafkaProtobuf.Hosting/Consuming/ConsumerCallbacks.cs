using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Diagnostics;
using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.Hosting.Consuming;

/// <summary>
/// What librdkafka calls back with, on the loop thread inside a consume (or on its own thread for errors and log
/// lines): partitions assigned, revoked or lost; commits; client errors; its own log lines, through
/// <see cref="ILogger"/> instead of stderr. Each goes to the log, the lag meter, the diagnostics and, for partitions
/// taken away, the owner. A failure met here (a fatal error; a conclusion during a revocation) is left in
/// <see cref="Failure"/>, for the consume to return: no callback ends the loop itself.
/// </summary>
internal sealed class ConsumerCallbacks<TKey, TValue>
{
    private readonly string _name;
    private readonly IConsumerOwner _owner;
    private readonly LagMeter<TKey, TValue> _lag;
    private readonly ILogger _logger;
    private readonly ConsumerDiagnostics _diagnostics;
    private ConsumerFailure? _failure;

    public ConsumerCallbacks(string name, IConsumerOwner owner, LagMeter<TKey, TValue> lag, ILogger logger, ConsumerDiagnostics diagnostics)
    {
        _name = name;
        _owner = owner;
        _lag = lag;
        _logger = logger;
        _diagnostics = diagnostics;
    }

    /// <summary>The first failure a callback met, which the consumer cannot go on after; null if none.</summary>
    public ConsumerFailure? Failure => Volatile.Read(ref _failure);

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
        if (_owner.Revoked(leaving) is { } failure)
        {
            Leave(failure);
        }

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
            Leave(new ConsumerFailure("librdkafka reported a fatal error: " + error, null));
        }
        else if (_logger.IsEnabled(LogLevel.Warning))
        {
            ConsumerLog.ClientError(_logger, _name, error.ToString());
        }
    }

    /// <summary>The first failure stays: what follows it is its consequence.</summary>
    private void Leave(ConsumerFailure failure) => Interlocked.CompareExchange(ref _failure, failure, null);

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
