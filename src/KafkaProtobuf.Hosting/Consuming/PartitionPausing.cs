using System;
using System.Collections.Generic;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Health;

namespace KafkaProtobuf.Hosting.Consuming;

/// <summary>
/// When the consumer's partitions pause and resume, on the loop thread, for either of two reasons. The read-ahead
/// budget (<see cref="KafkaProtobufConsumerOptions.MaxReadAheadBytes"/>): what records taken and not yet concluded count
/// (<see cref="ReadAhead"/>; records kept by the scheduler, records in open batches), one budget across partitions; the
/// partition whose record takes it past pauses, and every partition so paused resumes once half of it is free. And a
/// delay before a record is read again (a writer's schema unavailable, a copy not written, a retry topic's record not
/// due): the partition pauses, then resumes from that record. And an operator's pause, until the operator resumes it.
/// A partition fetches again once none holds it. What holds each partition is published to the consumer's status
/// when it changes, for operators to see.
/// </summary>
internal sealed class PartitionPausing
{
    private readonly Dictionary<(string Topic, int Partition), Pause> _paused = [];
    private readonly IPartitionFetching _fetching;
    private readonly long _maxReadAheadBytes;
    private readonly TimeProvider _time;
    private readonly ConsumerDiagnostics? _diagnostics;
    private readonly ConsumerStatus? _status;
    private List<(string, int)>? _resumed; // reused by ResumeDue

    /// <param name="fetching">The Kafka consumer.</param>
    /// <param name="maxReadAheadBytes">The read-ahead budget.</param>
    /// <param name="time">The clock delays are measured on.</param>
    /// <param name="diagnostics">Told of every change of the read-ahead count.</param>
    /// <param name="status">Told what holds each partition when that changes.</param>
    public PartitionPausing(
        IPartitionFetching fetching,
        long maxReadAheadBytes,
        TimeProvider time,
        ConsumerDiagnostics? diagnostics = null,
        ConsumerStatus? status = null)
    {
        _fetching = fetching;
        _maxReadAheadBytes = maxReadAheadBytes;
        _time = time;
        _diagnostics = diagnostics;
        _status = status;
    }

    /// <summary>The read-ahead budget.</summary>
    public long MaxReadAheadBytes => _maxReadAheadBytes;

    /// <summary>What records taken and not yet concluded count against the budget now.</summary>
    public long ReadAheadBytes { get; private set; }

    /// <summary>Whether the budget has run out.</summary>
    public bool ReadAheadRanOut => ReadAheadBytes >= _maxReadAheadBytes;

    /// <summary>Time since some fixed point, on this consumer's clock: for comparisons only.</summary>
    public TimeSpan Now => _time.GetElapsedTime(0);

    /// <summary>
    /// A record of <paramref name="partition"/> was taken and counts <paramref name="bytes"/> until it is concluded (see
    /// <see cref="Release"/>). True when that took the budget past its end: the partition pauses.
    /// </summary>
    public bool Charge(TopicPartition partition, long bytes) => Charge(partition.Topic, partition.Partition, bytes);

    /// <inheritdoc cref="Charge(TopicPartition, long)"/>
    public bool Charge(string topic, Partition partition, long bytes)
    {
        Hold(bytes);
        if (!ReadAheadRanOut)
        {
            return false;
        }

        // librdkafka drops what it fetched past the last record consumed, and resumes from there.
        Pause pause = PauseOf(topic, partition);
        pause.ForReadAhead = true;
        Publish(topic, partition.Value, pause);
        return true;
    }

    /// <summary>
    /// Records counting <paramref name="bytes"/>, let go a moment ago, are held again (what was left of an open batch):
    /// no partition pauses for them.
    /// </summary>
    public void Hold(long bytes)
    {
        ReadAheadBytes += bytes;
        _diagnostics?.ReadAhead(ReadAheadBytes);
    }

    /// <summary>Records counting <paramref name="bytes"/> were concluded or dropped: their memory is free.</summary>
    public void Release(long bytes)
    {
        if (bytes != 0)
        {
            ReadAheadBytes -= bytes;
            _diagnostics?.ReadAhead(ReadAheadBytes);
        }
    }

    /// <summary>
    /// The partition pauses, and reads <paramref name="record"/> again after <paramref name="delay"/>. Paused so already,
    /// it reads the earlier record again, after the later time: a record consumed after the partition was moved back
    /// belongs to the old reading, and must not move it forward.
    /// </summary>
    /// <param name="record">The record to read again.</param>
    /// <param name="delay">How long before it is.</param>
    /// <param name="reason">Why, for operators.</param>
    public void PauseFor(TopicPartitionOffset record, TimeSpan delay, PartitionPauses reason)
    {
        Pause pause = PauseOf(record.Topic, record.Partition);
        TimeSpan until = Now + delay;
        pause.Until = pause.Until is { } already && already > until ? already : until;
        pause.TimedReason = reason;
        ReadAgainFrom(pause, record);
        Publish(record.Topic, record.Partition.Value, pause);
    }

    /// <summary>An operator pauses the partition: it stays paused until the operator resumes it.</summary>
    public void PauseByOperator(TopicPartition partition)
    {
        Pause pause = PauseOf(partition.Topic, partition.Partition);
        pause.ByOperator = true;
        Publish(partition.Topic, partition.Partition.Value, pause);
    }

    /// <summary>An operator resumes the partition: it fetches again unless something else still holds it.</summary>
    public void ResumeByOperator(TopicPartition partition)
    {
        if (_paused.TryGetValue((partition.Topic, partition.Partition.Value), out Pause? pause) && pause.ByOperator)
        {
            pause.ByOperator = false;
            if (pause.Until is null && !pause.ForReadAhead)
            {
                Resume(partition.Topic, partition.Partition.Value);
            }
            else
            {
                Publish(partition.Topic, partition.Partition.Value, pause);
            }
        }
    }

    /// <summary>
    /// An operator rewinds the partition to <paramref name="record"/>: read at once if it fetches, or when it resumes
    /// (a record to read again later than this one is read from here instead).
    /// </summary>
    public void Rewind(TopicPartitionOffset record)
    {
        if (_paused.TryGetValue((record.Topic, record.Partition.Value), out Pause? pause))
        {
            ReadAgainFrom(pause, record);
        }
        else
        {
            _fetching.Seek(record);
        }
    }

    /// <summary>
    /// Ends the delays that are over and, once half the budget is free, the budget's pauses; resumes what nothing holds
    /// any more (from the record to read again, if any).
    /// </summary>
    public void ResumeDue()
    {
        if (_paused.Count == 0)
        {
            return;
        }

        TimeSpan now = Now;
        bool budgetFree = ReadAheadBytes <= _maxReadAheadBytes / 2;
        foreach (KeyValuePair<(string Topic, int Partition), Pause> entry in _paused)
        {
            Pause pause = entry.Value;
            if (pause.Until <= now)
            {
                pause.Until = null;
            }

            pause.ForReadAhead &= !budgetFree;
            if (pause.Until is null && !pause.ForReadAhead && !pause.ByOperator)
            {
                (_resumed ??= []).Add(entry.Key);
            }
            else
            {
                Publish(entry.Key.Topic, entry.Key.Partition, pause);
            }
        }

        if (_resumed is { Count: > 0 } resumed)
        {
            foreach ((string topic, int partition) in resumed)
            {
                Resume(topic, partition);
            }

            resumed.Clear();
        }
    }

    /// <summary>
    /// Partitions taken away: whatever paused them is over, and they fetch again (librdkafka keeps an application's pause
    /// across a rebalance: a partition this member gets back would stay paused with nothing left to resume it).
    /// </summary>
    public void LetGo(IEnumerable<TopicPartition> partitions)
    {
        foreach (TopicPartition partition in partitions)
        {
            if (_paused.Remove((partition.Topic, partition.Partition.Value)))
            {
                _fetching.Resume(partition);
                _status?.Paused(partition.Topic, partition.Partition.Value, PartitionPauses.None, null);
            }
        }
    }

    /// <summary>Nothing holds the partition any more: it fetches again, from the record to read again, if any.</summary>
    private void Resume(string topic, int partition)
    {
        TopicPartitionOffset? readAgainFrom = _paused[(topic, partition)].ReadAgainFrom;
        _paused.Remove((topic, partition));
        _fetching.Resume(new TopicPartition(topic, partition));
        if (readAgainFrom is { } record)
        {
            _fetching.Seek(record);
        }

        _status?.Paused(topic, partition, PartitionPauses.None, null);
    }

    private static void ReadAgainFrom(Pause pause, TopicPartitionOffset record)
    {
        if (pause.ReadAgainFrom is not { } earlier || record.Offset.Value < earlier.Offset.Value)
        {
            pause.ReadAgainFrom = record;
        }
    }

    /// <summary>Tells the status what holds the partition, when that changed (the budget's pauses come and go often).</summary>
    private void Publish(string topic, int partition, Pause pause)
    {
        if (_status is null)
        {
            return;
        }

        PartitionPauses now = (pause.ForReadAhead ? PartitionPauses.ReadAheadBudget : PartitionPauses.None)
            | (pause.Until is null ? PartitionPauses.None : pause.TimedReason)
            | (pause.ByOperator ? PartitionPauses.Operator : PartitionPauses.None);
        if (now != pause.Published || pause.Until != pause.PublishedUntil)
        {
            pause.Published = now;
            pause.PublishedUntil = pause.Until;
            DateTimeOffset? until = pause.Until is { } at ? _time.GetUtcNow() + (at - Now) : null;
            _status.Paused(topic, partition, now, until);
        }
    }

    private Pause PauseOf(string topic, Partition partition)
    {
        if (!_paused.TryGetValue((topic, partition.Value), out Pause? pause))
        {
            pause = new Pause();
            _paused.Add((topic, partition.Value), pause);
            _fetching.Pause(new TopicPartition(topic, partition));
        }

        return pause;
    }

    /// <summary>What holds a paused partition.</summary>
    private sealed class Pause
    {
        public bool ForReadAhead { get; set; }

        public bool ByOperator { get; set; }

        /// <summary>Why <see cref="Until"/> was set.</summary>
        public PartitionPauses TimedReason { get; set; }

        public PartitionPauses Published { get; set; }

        public TimeSpan? PublishedUntil { get; set; }

        /// <summary>Paused until then (<see cref="Now"/>), to read <see cref="ReadAgainFrom"/> again.</summary>
        public TimeSpan? Until { get; set; }

        public TopicPartitionOffset? ReadAgainFrom { get; set; }
    }
}
