using System;
using System.Collections.Generic;
using System.Threading;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Health;
using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.Hosting.Consuming;

/// <summary>
/// The hosted consumer's Kafka client, its one holder: consumes and sorts what came (a record, poison, an unavailable
/// writer's schema, nothing, the end); stores offsets, seeks, pauses, resumes; writes copies of records (dead letters,
/// retry copies) and stores the offset past each; tells whether a topic exists; closes. Every offset it stores goes to
/// the lag meter. All but <see cref="Dispose"/> runs on the loop thread; librdkafka's callbacks are
/// <see cref="ConsumerCallbacks{TKey, TValue}"/>'s, and a failure they meet comes out of the next consume. A failure
/// comes out as data (<see cref="Consumed.Failed"/>, then <see cref="Failure"/>): the client tells no one.
/// </summary>
/// <typeparam name="TKey">The key type.</typeparam>
/// <typeparam name="TValue">The value type.</typeparam>
internal sealed class ConsumerClient<TKey, TValue> : IPartitionFetching, IDisposable
{
    // Confluent's untimed consume polls in slices this long (its default) to see a cancellation.
    private static readonly TimeSpan UntimedConsumeSlice = TimeSpan.FromMilliseconds(100);

    private readonly IConsumer<TKey, TValue> _consumer;
    private readonly ConsumerCallbacks<TKey, TValue> _callbacks;
    private readonly string _name;
    private readonly ConsumerStatus _status;
    private readonly ILogger _logger;
    private readonly ConsumerDiagnostics _diagnostics;
    private readonly TimeSpan _readAgainDelay;
    private readonly LagMeter<TKey, TValue> _lag;

    /// <param name="name">The consumer's name, for log lines.</param>
    /// <param name="config">The consumer's settings.</param>
    /// <param name="keys">The key deserializer.</param>
    /// <param name="values">The value deserializer.</param>
    /// <param name="owner">Told of partitions taken away.</param>
    /// <param name="status">The consumer's health.</param>
    /// <param name="logger">The consumer's logger.</param>
    /// <param name="diagnostics">The consumer's diagnostic events.</param>
    /// <param name="readAgainDelay">How long before a record whose schema was unavailable is read again (for its log line).</param>
    public ConsumerClient(
        string name,
        ConsumerConfig config,
        IDeserializer<TKey> keys,
        IDeserializer<TValue> values,
        IConsumerOwner owner,
        ConsumerStatus status,
        ILogger logger,
        ConsumerDiagnostics diagnostics,
        TimeSpan readAgainDelay)
    {
        _name = name;
        _status = status;
        _logger = logger;
        _diagnostics = diagnostics;
        _readAgainDelay = readAgainDelay;
        KeyCapture = new RawBytesCapture<TKey>(keys);
        ValueCapture = new RawBytesCapture<TValue>(values);
        _lag = new LagMeter<TKey, TValue>(status.Lag, config.AutoOffsetReset, status.IsPaused);
        _callbacks = new ConsumerCallbacks<TKey, TValue>(name, owner, _lag, logger, diagnostics);
        ConsumerBuilder<TKey, TValue> builder = new ConsumerBuilder<TKey, TValue>(config)
            .SetKeyDeserializer(KeyCapture)
            .SetValueDeserializer(ValueCapture);
        _consumer = _callbacks.SetOn(builder).Build();
        Topics = new TopicExistence(_consumer.Handle);
        _lag.Start(_consumer);
    }

    /// <summary>The key deserializer, keeping the last record's key bytes as written.</summary>
    public RawBytesCapture<TKey> KeyCapture { get; }

    /// <summary>The value deserializer, keeping the last record's value bytes as written.</summary>
    public RawBytesCapture<TValue> ValueCapture { get; }

    public void Subscribe(IEnumerable<string> topics) => _consumer.Subscribe(topics);

    /// <summary>Whether a topic written to exists.</summary>
    public TopicExistence Topics { get; }

    /// <summary>How many times <see cref="Consume"/> was called: a poll cycle's number.</summary>
    public long Polls { get; private set; }

    /// <summary>
    /// Why the consumer cannot go on, once <see cref="Consume"/> or <see cref="SortUnread"/> answered
    /// <see cref="Consumed.Failed"/>; null before.
    /// </summary>
    public ConsumerFailure? Failure { get; private set; }

    /// <summary>
    /// Consumes once (until a record comes or <paramref name="stopping"/>, or for <paramref name="timeout"/>) and sorts
    /// what came: a record; a poison record or one whose writer's schema is unavailable (<paramref name="unread"/>; the
    /// latter logged and the health degraded); nothing (a passing broker error, logged); or the end (stopping, or failed:
    /// <see cref="Failure"/> says why). A failure a callback met during the consume (a fatal error, a conclusion while
    /// partitions were revoked) ends it too: what came with it is not handled, and is read again.
    /// </summary>
    public Consumed Consume(
        TimeSpan? timeout, CancellationToken stopping, out ConsumeResult<TKey, TValue>? record, out ConsumeException? unread)
    {
        Polls++;
        Consumed consumed = ConsumeOnce(timeout, stopping, out record, out unread);
        if (_callbacks.Failure is { } left)
        {
            record = null;
            unread = null;
            Failure = left;
            return Consumed.Failed;
        }

        return consumed;
    }

    private Consumed ConsumeOnce(
        TimeSpan? timeout, CancellationToken stopping, out ConsumeResult<TKey, TValue>? record, out ConsumeException? unread)
    {
        record = null;
        unread = null;
        try
        {
            record = timeout is { } wait ? _consumer.Consume(wait) : ConsumeUntilStopping(stopping);
        }
        catch (OperationCanceledException) when (stopping.IsCancellationRequested)
        {
            return Consumed.Stopping;
        }
        catch (ConsumeException e) when (e.IsDeserializationFailure() || e.IsSchemaUnavailable())
        {
            unread = e;
            ConsumeResult<byte[], byte[]> raw = e.ConsumerRecord;
            _lag.Consumed(raw.Topic, raw.Partition, raw.Offset);
            if (!IsAccessDenied(e))
            {
                _diagnostics.Delivered(raw.Topic, raw.Partition, raw.Offset); // before it is sorted: a move back follows its delivery
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
            return Fail(new ConsumerFailure("the consumer failed: " + e.Error, e));
        }

        if (record is null || record.IsPartitionEOF)
        {
            return Consumed.Nothing;
        }

        _lag.Consumed(record.Topic, record.Partition, record.Offset);
        _diagnostics.Delivered(record.Topic, record.Partition, record.Offset);
        return Consumed.Record;
    }

    /// <summary>
    /// Sorts a record that could not be deserialized, here or when a handler took it (keys and values read late, see
    /// <see cref="RawBytesCapture{T}.ReadsLater"/>): poison (<see cref="Consumed.Poison"/>: dead-letter it); its writer's
    /// schema unavailable (<see cref="Consumed.SchemaUnavailable"/>: logged, the health degraded; the caller reads it
    /// again later); or the schema source refusing this application's credentials (<see cref="Consumed.Failed"/>:
    /// waiting cannot fix that, so the consumer stops loudly (<see cref="Failure"/>), nothing past the record stored).
    /// </summary>
    public Consumed SortUnread(ConsumeException unread)
    {
        if (IsAccessDenied(unread))
        {
            var denied = (SchemaUnavailableException)unread.InnerException!;
            string reason = PositionText.Of(unread.ConsumerRecord.TopicPartitionOffset)
                + ": the schema source refused this application's credentials ("
                + BoundedText.Cut(denied.InnerException!.Message) + ")";
            return Fail(new ConsumerFailure(reason, denied));
        }

        if (unread.IsSchemaUnavailable())
        {
            Exception why = unread.InnerException?.InnerException ?? unread.InnerException ?? unread; // the source's own failure
            TopicPartitionOffset position = unread.ConsumerRecord.TopicPartitionOffset;
            _status.Waits(position.TopicPartition, "obtain a writer's schema", BoundedText.Cut(why.Message, 300));
            ConsumerLog.SchemaUnavailable(_logger, _name, PositionText.Of(position), _readAgainDelay, unread.InnerException ?? unread);
            _diagnostics.MovedBack(position, schemaUnavailable: true); // the loop goes back to it
            return Consumed.SchemaUnavailable;
        }

        return Consumed.Poison;
    }

    /// <summary>
    /// Consumes until a record comes or shutdown (<see cref="OperationCanceledException"/>), or until a callback leaves
    /// a failure: Confluent's untimed consume would wait on past it, for records that may never come.
    /// </summary>
    private ConsumeResult<TKey, TValue>? ConsumeUntilStopping(CancellationToken stopping)
    {
        while (true)
        {
            stopping.ThrowIfCancellationRequested();
            ConsumeResult<TKey, TValue>? record = _consumer.Consume(UntimedConsumeSlice);
            if (record is not null || _callbacks.Failure is not null)
            {
                return record;
            }
        }
    }

    private Consumed Fail(ConsumerFailure failure)
    {
        Failure = failure;
        return Consumed.Failed;
    }

    /// <summary>Stores the offset past a record its handler is done with; auto-commit sends it.</summary>
    public void StoreOffset(ConsumeResult<TKey, TValue> record)
    {
        try
        {
            _consumer.StoreOffset(record);
            _lag.Stored(record.Topic, record.Partition, record.Offset);
            _diagnostics.Stored(record.Topic, record.Partition, record.Offset);
        }
        catch (KafkaException e)
        {
            ConsumerLog.OffsetNotStored(_logger, _name, record.Topic, record.Partition.Value, record.Offset.Value, e.Error.Code);
        }
    }

    /// <summary>The partition is read again from <paramref name="record"/>.</summary>
    public void Seek(TopicPartitionOffset record) => _consumer.Seek(record);

    public void Pause(TopicPartition partition) => _consumer.Pause([partition]);

    /// <summary>Whether this member holds the partition now.</summary>
    public bool IsAssigned(TopicPartition partition) => _consumer.Assignment.Contains(partition);

    /// <summary>
    /// Whether the partition may be read again from <paramref name="offset"/>: one it still has (its start as last
    /// fetched, when known), and not past the consumer's position (a rewind reads again; it never skips records).
    /// </summary>
    public bool CanRewind(TopicPartition partition, long offset)
    {
        if (offset < 0)
        {
            return false;
        }

        WatermarkOffsets known = _consumer.GetWatermarkOffsets(partition);
        if (known.Low.Value >= 0 && offset < known.Low.Value)
        {
            return false;
        }

        long position = _consumer.Position(partition).Value;
        long limit = position >= 0 ? position : known.High.Value;
        return limit < 0 || offset <= limit;
    }

    public void Resume(TopicPartition partition) => _consumer.Resume([partition]);

    /// <summary>Writes a record elsewhere (its dead letter, a retry topic's copy) and stores the offset past it.</summary>
    public CopyResult Forward(
        ConsumeResult<byte[], byte[]> record,
        Message<byte[], byte[]> copy,
        IProducer<byte[], byte[]> producer,
        string topic,
        TimeSpan timeout) =>
        Stored(_consumer.Forward(record, copy, producer, topic, timeout, DeadLetterOffsetHandling.Store));

    /// <summary>Commits the stored offsets and leaves the group.</summary>
    public void Close() => _consumer.Close();

    /// <summary>Frees the client; after <see cref="Close"/>, or without it where closing is not possible.</summary>
    public void Dispose()
    {
        _lag.Dispose();
        Topics.Dispose(); // it uses the consumer's handle
        _consumer.Dispose(); // Confluent.Kafka destroys the handle without closing
    }

    private static bool IsAccessDenied(ConsumeException unread) =>
        unread.IsSchemaUnavailable() && unread.InnerException is SchemaUnavailableException { IsAccessDenied: true };

    /// <summary>A copy written (a dead letter, a retry copy): the lag meter hears of the offset past it, if the copy stored it.</summary>
    private CopyResult Stored(CopyResult copy)
    {
        if (copy.Offset is OffsetOutcome.Stored or OffsetOutcome.Committed)
        {
            _lag.Stored(copy.Record.Topic, copy.Record.Partition, copy.Record.Offset);
        }

        return copy;
    }
}
