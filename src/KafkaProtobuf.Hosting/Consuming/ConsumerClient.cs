using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Health;
using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.Hosting.Consuming;

/// <summary>
/// The consume step, the one holder of the Kafka consumer and its callbacks: consumes and sorts what came (a record,
/// poison, an unavailable writer's schema, nothing, the end); stores offsets, seeks, pauses, resumes; writes copies (dead
/// letters, retry copies), storing the offset past the record; closes the consumer. All but <see cref="Dispose"/> and the
/// <see cref="LagMeter{TKey, TValue}"/>'s timer runs on the loop thread; the owner hears through <see cref="IConsumeStepOwner"/>.
/// </summary>
/// <typeparam name="TKey">The key type.</typeparam>
/// <typeparam name="TValue">The value type.</typeparam>
internal sealed class ConsumeStep<TKey, TValue> : IDisposable
{
    // How long a write that failed waits for the brokers to say whether its topic exists.
    private static readonly TimeSpan TopicCheckTimeout = TimeSpan.FromSeconds(5);

    private readonly IConsumer<TKey, TValue> _consumer;
    private readonly IConsumeStepOwner _owner;
    private readonly string _name;
    private readonly ConsumerStatus _status;
    private readonly ILogger _logger;
    private readonly IConsumerProbe? _probe;
    private readonly TimeSpan _readAgainDelay;
    private IAdminClient? _metadata; // on the consumer's connection: whether a topic written to exists
    private readonly LagMeter<TKey, TValue> _lag;

    /// <param name="name">The consumer's name, for log lines and the probe.</param>
    /// <param name="config">The consumer's settings.</param>
    /// <param name="keys">The key deserializer.</param>
    /// <param name="values">The value deserializer.</param>
    /// <param name="owner">Told of partitions taken away and of failures.</param>
    /// <param name="status">The consumer's health.</param>
    /// <param name="logger">The consumer's logger.</param>
    /// <param name="probe">The tests' probe, if any.</param>
    /// <param name="readAgainDelay">How long before a record whose schema was unavailable is read again (for its log line).</param>
    public ConsumeStep(
        string name,
        ConsumerConfig config,
        IDeserializer<TKey> keys,
        IDeserializer<TValue> values,
        IConsumeStepOwner owner,
        ConsumerStatus status,
        ILogger logger,
        IConsumerProbe? probe,
        TimeSpan readAgainDelay)
    {
        _name = name;
        _owner = owner;
        _status = status;
        _logger = logger;
        _probe = probe;
        _readAgainDelay = readAgainDelay;
        Keys = new RawBytesCapture<TKey>(keys);
        Values = new RawBytesCapture<TValue>(values);
        _consumer = new ConsumerBuilder<TKey, TValue>(config)
            .SetKeyDeserializer(Keys)
            .SetValueDeserializer(Values)
            .SetErrorHandler((_, error) => OnClientError(error))
            .SetPartitionsAssignedHandler(OnAssigned)
            .SetPartitionsRevokedHandler((_, partitions) => OnRevoked(partitions, lost: false))
            .SetPartitionsLostHandler((_, partitions) => OnRevoked(partitions, lost: true))
            .SetOffsetsCommittedHandler((_, committed) => OnCommitted(committed))
            .SetLogHandler((_, message) => OnClientLog(message)) // librdkafka's own lines, through ILogger instead of stderr
            .Build();
        _lag = new LagMeter<TKey, TValue>(_consumer, status.Lag).Start();
    }

    /// <summary>The last record's key bytes, as written.</summary>
    public RawBytesCapture<TKey> Keys { get; }

    /// <summary>The last record's value bytes, as written.</summary>
    public RawBytesCapture<TValue> Values { get; }

    public void Subscribe(IEnumerable<string> topics) => _consumer.Subscribe(topics);

    /// <summary>
    /// Consumes once (until a record comes or <paramref name="stopping"/>, or for <paramref name="timeout"/>) and sorts
    /// what came: a record; a poison record or one whose writer's schema is unavailable (<paramref name="unread"/>; the
    /// latter logged and the health degraded); nothing (a passing broker error, logged); or the end (stopping, or failed:
    /// the owner was told why).
    /// </summary>
    public Consumed Consume(TimeSpan? timeout, CancellationToken stopping, out ConsumeResult<TKey, TValue>? record, out ConsumeException? unread)
    {
        record = null;
        unread = null;
        try
        {
            record = timeout is { } wait ? _consumer.Consume(wait) : _consumer.Consume(stopping);
        }
        catch (OperationCanceledException) when (stopping.IsCancellationRequested)
        {
            return Consumed.Stopping;
        }
        catch (ConsumeException e) when (e.IsDeserializationFailure() || e.IsSchemaUnavailable())
        {
            unread = e;
            _lag.Consumed(e.ConsumerRecord.Topic, e.ConsumerRecord.Partition, e.ConsumerRecord.Offset);
            if (!IsAccessDenied(e))
            {
                _probe?.Delivered(_name, e.ConsumerRecord.TopicPartitionOffset); // before it is sorted: a move back follows its delivery
            }

            return SortUnread(e);
        }
        catch (ConsumeException e) when (e.IsRecoverableConsumerError())
        {
            ConsumerLog.ConsumerError(_logger, _name, e.Error.ToString());
            return Consumed.Nothing;
        }
        catch (KafkaException e)
        {
            _owner.Failed("the consumer failed: " + e.Error, e, outsideConsume: false);
            return Consumed.Failed;
        }

        if (record is null || record.IsPartitionEOF)
        {
            return Consumed.Nothing;
        }

        _lag.Consumed(record.Topic, record.Partition, record.Offset);
        _probe?.Delivered(_name, record.TopicPartitionOffset);
        return Consumed.Record;
    }

    /// <summary>
    /// Sorts a record that could not be deserialized, here or when a handler took it (keys and values read late, see
    /// <see cref="RawBytesCapture{T}.ReadsLater"/>): poison (<see cref="Consumed.Poison"/>: dead-letter it); its writer's
    /// schema unavailable (<see cref="Consumed.SchemaUnavailable"/>: logged, the health degraded, the probe told; the
    /// caller reads it again later); or the schema source refusing this application's credentials
    /// (<see cref="Consumed.Failed"/>: waiting cannot fix that, so the owner is told and the consumer stops loudly,
    /// nothing past the record stored).
    /// </summary>
    public Consumed SortUnread(ConsumeException unread)
    {
        if (IsAccessDenied(unread))
        {
            var denied = (SchemaUnavailableException)unread.InnerException!;
            _owner.Failed(PositionText.Of(unread.ConsumerRecord.TopicPartitionOffset) + ": the schema source refused this application's credentials (" + BoundedText.Cut(denied.InnerException!.Message) + ")", denied, outsideConsume: false);
            return Consumed.Failed;
        }

        if (unread.IsSchemaUnavailable())
        {
            Exception why = unread.InnerException?.InnerException ?? unread.InnerException ?? unread; // the source's own failure
            _status.Waits(unread.ConsumerRecord.TopicPartition, "obtain a writer's schema", BoundedText.Cut(why.Message, 300));
            ConsumerLog.SchemaUnavailable(_logger, _name, PositionText.Of(unread.ConsumerRecord.TopicPartitionOffset), _readAgainDelay, unread.InnerException ?? unread);
            _probe?.MovedBack(_name, unread.ConsumerRecord.TopicPartitionOffset, schemaUnavailable: true); // the loop goes back to it
            return Consumed.SchemaUnavailable;
        }

        return Consumed.Poison;
    }

    private static bool IsAccessDenied(ConsumeException unread) =>
        unread.IsSchemaUnavailable() && unread.InnerException is SchemaUnavailableException { IsAccessDenied: true };

    /// <summary>Stores the offset past a record its handler is done with; auto-commit sends it.</summary>
    public void StoreOffset(ConsumeResult<TKey, TValue> record)
    {
        try
        {
            _consumer.StoreOffset(record);
            _lag.Stored(record.Topic, record.Partition, record.Offset);
            _probe?.Stored(_name, record.TopicPartitionOffset);
        }
        catch (KafkaException e)
        {
            ConsumerLog.OffsetNotStored(_logger, _name, record.Topic, record.Partition.Value, record.Offset.Value, e.Error.Code);
        }
    }

    /// <summary>The partition is read again from <paramref name="record"/>.</summary>
    public void Seek(TopicPartitionOffset record) => _consumer.Seek(record);

    public void Pause(TopicPartition partition) => _consumer.Pause([partition]);

    /// <summary>Fetches the partition again, from <paramref name="readAgainFrom"/> when given.</summary>
    public void Resume(TopicPartition partition, TopicPartitionOffset? readAgainFrom)
    {
        _consumer.Resume([partition]);
        if (readAgainFrom is not null)
        {
            _consumer.Seek(readAgainFrom);
        }
    }

    /// <summary>Dead-letters a poison record and stores the offset past it (see <see cref="DeadLetterExtensions"/>).</summary>
    public CopyResult DeadLetter(ConsumeException poison, IProducer<byte[], byte[]> producer, string topic, TimeSpan timeout) =>
        _lag.Stored(_consumer.DeadLetter(poison, producer, topic, timeout));

    /// <summary>Dead-letters a record whose handler failed for good and stores the offset past it.</summary>
    public CopyResult DeadLetter(ConsumeResult<byte[], byte[]> record, Exception failure, IProducer<byte[], byte[]> producer, string topic, TimeSpan timeout) =>
        _lag.Stored(_consumer.DeadLetter(record, failure, producer, topic, timeout, DeadLetterOffsetHandling.Store));

    /// <summary>Writes a copy of a record elsewhere (a retry topic) and stores the offset past it.</summary>
    public CopyResult Forward(ConsumeResult<byte[], byte[]> record, Message<byte[], byte[]> copy, IProducer<byte[], byte[]> producer, string topic, TimeSpan timeout) =>
        _consumer.Forward(record, copy, producer, topic, timeout, DeadLetterOffsetHandling.Store);

    /// <summary>
    /// Whether a write failed because its topic does not exist: asked of the brokers' metadata (through the consumer's
    /// connection, which never creates topics) when the error is one a missing topic gives (the producer times out
    /// waiting for it, or is told it is unknown).
    /// </summary>
    public bool IsMissing(string topic, ErrorCode error)
    {
        if (error is not (ErrorCode.Local_TimedOut or ErrorCode.Local_MsgTimedOut or ErrorCode.Local_UnknownTopic or ErrorCode.UnknownTopicOrPart or ErrorCode.Local_UnknownPartition))
        {
            return false;
        }

        try
        {
            _metadata ??= new DependentAdminClientBuilder(_consumer.Handle).Build();
            List<TopicMetadata> topics = _metadata.GetMetadata(topic, TopicCheckTimeout).Topics;
            return topics.Count == 1 && topics[0].Error.Code is ErrorCode.UnknownTopicOrPart or ErrorCode.Local_UnknownTopic;
        }
        catch (KafkaException)
        {
            return false; // the brokers did not answer: nothing is known of the topic
        }
    }

    /// <summary>Commits the stored offsets and leaves the group.</summary>
    public void Close() => _consumer.Close();

    /// <summary>
    /// Frees the client without closing it (what a killed process leaves: no commit, no LeaveGroup). Also what
    /// <see cref="Dispose"/> does after <see cref="Close"/>.
    /// </summary>
    public void Dispose()
    {
        _lag.Dispose();
        _metadata?.Dispose(); // it uses the consumer's handle
        _consumer.Dispose(); // Confluent.Kafka destroys the handle without closing
    }

    private void OnAssigned(IConsumer<TKey, TValue> client, List<TopicPartition> partitions)
    {
        // Returning nothing: librdkafka starts each partition at the group's committed offset.
        ConsumerLog.Assigned(_logger, _name, new PartitionList(partitions));
        _probe?.Assigned(_name, client, partitions);
    }

    private void OnRevoked(List<TopicPartitionOffset> partitions, bool lost)
    {
        List<TopicPartition> leaving = partitions.ConvertAll(p => p.TopicPartition);
        _lag.Revoked(leaving);
        ConsumerLog.Revoked(_logger, _name, lost ? "lost" : "revoked", new PartitionList(leaving));
        _owner.Revoked(leaving);
        _probe?.Revoked(_name, partitions);
    }

    private void OnCommitted(CommittedOffsets committed)
    {
        // Auto-commit retries with the offsets stored then; a failure only means records may be read again.
        Error error = committed.Error.IsError ? committed.Error : committed.Offsets.FirstOrDefault(o => o.Error.IsError)?.Error ?? committed.Error;
        if (error.IsError)
        {
            ConsumerLog.CommitFailed(_logger, _name, error.ToString());
        }

        _probe?.Committed(_name, committed);
    }

    private void OnClientError(Error error)
    {
        _probe?.ClientError(_name, error);
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
