using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Threading;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;

namespace KafkaProtobuf.Redrive;

/// <summary>
/// One redrive: reads, decides, writes, commits what is acknowledged. It reads each partition up to its end when it
/// starts, or, for a plan's run, up to the end the plan's dry run read to (<paramref name="plannedEnds"/>; a partition
/// the plan did not see is not read).
/// </summary>
#pragma warning disable CS0618 // RedriveOptions.DryRun: the flag a plan's dry run runs with
internal sealed class RedriveRun(
    IConsumer<byte[], byte[]> consumer,
    IProducer<byte[], byte[]> producer,
    RedriveOptions options,
    Action<DeadLetter, RedriveOutcome>? onDeadLetter,
    IReadOnlyDictionary<int, long>? plannedEnds = null)
{
    /// <summary>How long a request to the cluster (metadata, committed offsets, watermarks) may take.</summary>
    private static readonly TimeSpan RequestTimeout = TimeSpan.FromSeconds(30);

    private readonly object _lock = new();
    private readonly RedriveSummary _summary = new() { DryRun = options.DryRun };
    private readonly Dictionary<int, PartitionProgress> _partitions = new();
    private readonly Stopwatch _clock = Stopwatch.StartNew();
    private readonly ProvenanceCodec _codec = new(options.ProvenanceKeys);
    private string? _failure;
    private string? _commitFailure;
    private long _written;

    /// <summary>Where each partition's reading stops: its end when the run started, or the plan's.</summary>
    internal IReadOnlyDictionary<int, long> Ends
    {
        get
        {
            lock (_lock)
            {
                return _partitions.ToDictionary(p => p.Key, p => p.Value.End);
            }
        }
    }

    internal RedriveSummary Execute(CancellationToken cancellationToken)
    {
        Start();
        var lastCommit = TimeSpan.Zero;
        while (!cancellationToken.IsCancellationRequested && Failure() is null && _partitions.Values.Any(p => !p.Done))
        {
            ConsumeResult<byte[], byte[]>? result = consumer.Consume(TimeSpan.FromMilliseconds(100));
            if (result is not null)
            {
                Take(result, cancellationToken);
            }

            if (_clock.Elapsed - lastCommit > TimeSpan.FromSeconds(1))
            {
                Commit();
                lastCommit = _clock.Elapsed;
            }
        }

        // What was written is acknowledged, then committed, however the run ends.
        while (producer.Flush(TimeSpan.FromMilliseconds(500)) > 0 && _clock.Elapsed < TimeSpan.FromHours(1))
        {
        }

        Commit();
        lock (_lock)
        {
            _summary.Completed = _failure is null && _commitFailure is null && _partitions.Values.All(p => p.Done);
            _summary.Failure = _failure ?? _commitFailure;
        }

        return _summary;
    }

    private void Start()
    {
        using IAdminClient admin = new DependentAdminClientBuilder(producer.Handle).Build();
        TopicMetadata? topic = admin.GetMetadata(options.DeadLetterTopic, RequestTimeout).Topics.FirstOrDefault(t => t.Topic == options.DeadLetterTopic);
        if (topic is null || topic.Error.IsError || topic.Partitions.Count == 0)
        {
            throw new InvalidOperationException("The dead-letter topic '" + options.DeadLetterTopic + "' does not exist" + (topic?.Error.IsError == true ? " (" + topic.Error.Reason + ")" : string.Empty) + ".");
        }

        var partitions = topic.Partitions.Select(p => new TopicPartition(options.DeadLetterTopic, p.PartitionId)).ToList();
        var committed = consumer.Committed(partitions, RequestTimeout).ToDictionary(c => c.Partition.Value, c => c.Offset);
        var start = new List<TopicPartitionOffset>();
        foreach (TopicPartition partition in partitions)
        {
            WatermarkOffsets ends = consumer.QueryWatermarkOffsets(partition, RequestTimeout);
            Offset from = committed.TryGetValue(partition.Partition.Value, out Offset offset) && offset.Value >= 0 ? offset : Offset.Beginning;
            long next = from == Offset.Beginning ? ends.Low.Value : from.Value;
            long end = plannedEnds is null ? ends.High.Value : plannedEnds.TryGetValue(partition.Partition.Value, out long planned) ? Math.Min(planned, ends.High.Value) : next;
            _partitions[partition.Partition.Value] = new PartitionProgress(next, end);
            start.Add(new TopicPartitionOffset(partition, from));
        }

        consumer.Assign(start.Where(s => !_partitions[s.Partition.Value].Done));
    }

    private void Take(ConsumeResult<byte[], byte[]> result, CancellationToken cancellationToken)
    {
        PartitionProgress progress = _partitions[result.Partition.Value];
        if (result.IsPartitionEOF || result.Offset.Value >= progress.End)
        {
            // The end as it was when the run started: what came later (a record failing again) waits for the next run.
            lock (_lock)
            {
                progress.ReachedEnd();
            }

            consumer.Pause([result.TopicPartition]);
            return;
        }

        DeadLetter deadLetter = _codec.Read(result);
        RedriveOutcome outcome = Decide(deadLetter);
        if (outcome == RedriveOutcome.Written && !options.DryRun)
        {
            WaitForRate(cancellationToken);
            if (!Write(deadLetter, progress, cancellationToken))
            {
                return; // stopped while the producer's queue was full: neither written nor read, the next run takes it
            }
        }

        lock (_lock)
        {
            progress.Consumed(result.Offset.Value);
            _summary.Add(outcome);
        }

        onDeadLetter?.Invoke(deadLetter, outcome);
    }

    private RedriveOutcome Decide(DeadLetter deadLetter)
    {
        if (deadLetter.Provenance == ProvenanceStatus.Unverified)
        {
            return RedriveOutcome.SkippedUnverified;
        }

        if (deadLetter.SourceTopic is null)
        {
            return RedriveOutcome.SkippedWithoutSource;
        }

        bool matches =
            (options.SourceTopic is null || options.SourceTopic == deadLetter.SourceTopic)
            && (options.ErrorCode is null || options.ErrorCode == deadLetter.ErrorCode)
            && (options.Component is null || options.Component == deadLetter.Component)
            && (options.Since is null || deadLetter.Record.Message.Timestamp.UtcDateTime >= options.Since.Value.UtcDateTime)
            && (options.Until is null || deadLetter.Record.Message.Timestamp.UtcDateTime < options.Until.Value.UtcDateTime)
            && (options.FromSourceOffset is null || deadLetter.SourceOffset >= options.FromSourceOffset)
            && (options.ToSourceOffset is null || deadLetter.SourceOffset < options.ToSourceOffset)
            && (options.Key is null || (deadLetter.Record.Message.Key ?? []).AsSpan().SequenceEqual(options.Key));
        if (!matches)
        {
            return RedriveOutcome.SkippedByFilter;
        }

        return deadLetter.RedriveCount >= options.MaxRedrives && !options.Force ? RedriveOutcome.SkippedForLoops : RedriveOutcome.Written;
    }

    /// <summary>Hands the record to the producer (waiting while its queue is full); false when stopped before it could.</summary>
    private bool Write(DeadLetter deadLetter, PartitionProgress progress, CancellationToken cancellationToken)
    {
        Message<byte[], byte[]> message = _codec.ToRedriven(deadLetter, options.RunId, DateTimeOffset.UtcNow);
        string topic = options.TargetTopic ?? deadLetter.SourceTopic!;
        TopicPartition target = options.KeepSourcePartition && deadLetter.SourcePartition is int partition
            ? new TopicPartition(topic, partition)
            : new TopicPartition(topic, Partition.Any);
        long offset = deadLetter.Record.Offset.Value;
        lock (_lock)
        {
            progress.Pending.Add(offset);
        }

        while (true)
        {
            try
            {
                producer.Produce(target, message, Delivered);
                _written++;
                return true;
            }
            catch (ProduceException<byte[], byte[]> e) when (e.Error.Code == Confluent.Kafka.ErrorCode.Local_QueueFull && !cancellationToken.IsCancellationRequested)
            {
                producer.Poll(TimeSpan.FromMilliseconds(100)); // deliveries make room
            }
            catch (ProduceException<byte[], byte[]> e)
            {
                lock (_lock)
                {
                    progress.Pending.Remove(offset);
                    if (e.Error.Code != Confluent.Kafka.ErrorCode.Local_QueueFull)
                    {
                        Fail(e.Error.Reason);
                    }
                }

                return false;
            }
        }

        // Under the lock: the first failure is the run's.
        void Fail(string reason)
        {
            _failure ??= "writing the dead letter at " + options.DeadLetterTopic + "[" + deadLetter.Record.Partition.Value + "]@" + offset + " to " + topic + " failed: " + reason;
            _summary.Add(RedriveOutcome.Failed);
        }

        void Delivered(DeliveryReport<byte[], byte[]> report)
        {
            lock (_lock)
            {
                if (report.Error.IsError)
                {
                    Fail(report.Error.Reason); // left pending: nothing past it is committed, so the next run writes it again
                }
                else
                {
                    progress.Pending.Remove(offset);
                }
            }
        }
    }

    private void WaitForRate(CancellationToken cancellationToken)
    {
        if (options.RecordsPerSecond is double rate)
        {
            TimeSpan due = TimeSpan.FromSeconds(_written / rate) - _clock.Elapsed;
            if (due > TimeSpan.Zero)
            {
                cancellationToken.WaitHandle.WaitOne(due);
            }
        }
    }

    private string? Failure()
    {
        lock (_lock)
        {
            return _failure;
        }
    }

    private void Commit()
    {
        if (options.DryRun)
        {
            return;
        }

        List<TopicPartitionOffset> offsets;
        lock (_lock)
        {
            offsets = _partitions
                .Where(p => p.Value.Committable > p.Value.Committed)
                .Select(p => new TopicPartitionOffset(options.DeadLetterTopic, p.Key, p.Value.Committable))
                .ToList();
        }

        if (offsets.Count == 0)
        {
            return;
        }

        try
        {
            consumer.Commit(offsets);
        }
        catch (KafkaException e)
        {
            // Progress not saved this time: the next commit tries again; if the last one fails, the run says so, and the
            // next run writes these records again (at least once, never lost).
            lock (_lock)
            {
                _commitFailure = "the run's progress could not be committed: " + e.Error.Reason;
            }

            return;
        }

        lock (_lock)
        {
            _commitFailure = null;
            foreach (TopicPartitionOffset offset in offsets)
            {
                _partitions[offset.Partition.Value].Committed = offset.Offset.Value;
            }
        }
    }
}
#pragma warning restore CS0618
