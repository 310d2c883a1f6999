using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// Partition-parallel mode (<see cref="KafkaProtobufConsumerOptions.MaxConcurrentRecords"/> above 1). The loop thread
/// alone talks to the consumer: it consumes, puts each record in its partition's lane, pauses a partition whose lane is
/// full, and concludes what the workers hand back (stores offsets, writes dead letters, moves back) in each partition's
/// order. Workers only run handlers: one per sequence at a time (a partition's, or a key group's), at most
/// MaxConcurrentRecords at once. So records of a sequence are handled in order, and an offset is stored only once every
/// earlier record of its partition is done.
/// </summary>
internal sealed partial class KafkaProtobufConsumerService<TKey, TValue>
{
    private static readonly TimeSpan BusyWait = TimeSpan.FromMilliseconds(2);
    private static readonly TimeSpan IdleWait = TimeSpan.FromMilliseconds(50);

    // Per-key mode: key groups per partition. More groups than handlers, so that few keys share a group by chance.
    private const int KeyGroupsPerHandler = 4;

    private readonly Dictionary<(string Topic, int Partition), PartitionLane<TKey, TValue>> _lanes = [];
    private readonly ConcurrentQueue<LaneItem<TKey, TValue>> _done = new();
    private SemaphoreSlim? _slots;
    private PartitionLane<TKey, TValue>? _lastLane; // records come in runs of one partition: most lookups end here
    private int _deepestLane;
    private int _running;
    private int _pausedLanes; // loop thread only: lanes paused for a full lane or a back-off (ResumeDue has nothing to do without one)

    /// <summary>The most records any partition's lane has held at once: what <see cref="KafkaProtobufConsumerOptions.MaxQueuedRecordsPerPartition"/> bounds.</summary>
    internal int DeepestLane => Volatile.Read(ref _deepestLane);

    private bool PerKey => _options.HandlingOrder == HandlingOrder.Key;

    private void RunPartitionParallel()
    {
        // Not disposed: a handler that ignores its token may still release its slot after the loop ended.
        _slots = new SemaphoreSlim(_options.MaxConcurrentRecords, _options.MaxConcurrentRecords);
        while (!_stopTaking.IsCancellationRequested)
        {
            if (!ConcludeDone())
            {
                return;
            }

            ResumeDue();
            Taken taken = Take(Volatile.Read(ref _running) > 0 ? BusyWait : IdleWait, out ConsumeResult<TKey, TValue>? result, out ConsumeException? unread);
            if (taken is Taken.Stopping or Taken.Failed)
            {
                return;
            }

            if (taken == Taken.Poison)
            {
                ConsumeResult<byte[], byte[]> poison = unread!.ConsumerRecord;
                PartitionLane<TKey, TValue> lane = LaneOf(poison.Topic, poison.Partition);
                RecordSequence<TKey, TValue> sequence = PerKey ? lane.SequenceOf(KeyHash.Of(poison.Message?.Key)) : lane.SequenceOf(0);
                Add(new LaneItem<TKey, TValue>(sequence, lane.Generation, null, unread, null, null)); // never inline: dead-lettering is the loop's
            }
            else if (taken == Taken.SchemaUnavailable)
            {
                // This partition goes back to the record after a back-off; the others go on.
                TopicPartitionOffset position = unread!.ConsumerRecord.TopicPartitionOffset;
                BackOff(LaneOf(position.Topic, position.Partition), position, dropLater: false); // what it holds came before it
                _probe?.MovedBack(Name, position, schemaUnavailable: true);
            }
            else if (taken == Taken.Record && !Add(LaneOf(result!.Topic, result.Partition), result))
            {
                return;
            }
        }

        // Shutting down: start nothing more, let the records in hand finish (their handlers are cancelled when the
        // host's shutdown timeout runs out), and store what finished; Close then commits it. A killed consumer stores nothing.
        if (!_abandoned)
        {
            WaitForLanes(_lanes.Values.ToList(), Timeout.InfiniteTimeSpan);
            ConcludeDone();
        }
    }

    /// <summary>The partition's lane, made on its first record (by topic and number: a record's TopicPartition is a new object each time it is read).</summary>
    private PartitionLane<TKey, TValue> LaneOf(string topic, Partition partition)
    {
        if (_lastLane is { } last && last.Partition.Partition == partition && string.Equals(last.Partition.Topic, topic, StringComparison.Ordinal))
        {
            return last;
        }

        if (!_lanes.TryGetValue((topic, partition.Value), out PartitionLane<TKey, TValue>? lane))
        {
            lane = new PartitionLane<TKey, TValue>(new TopicPartition(topic, partition), PerKey ? KeyGroupsPerHandler * _options.MaxConcurrentRecords : 1);
            _lanes.Add((topic, partition.Value), lane);
        }

        _lastLane = lane;
        return lane;
    }

    private bool TryGetLane(TopicPartition partition, [NotNullWhen(true)] out PartitionLane<TKey, TValue>? lane) => _lanes.TryGetValue((partition.Topic, partition.Partition.Value), out lane);

    /// <summary>
    /// A good record. When its partition has nothing unconcluded and a handler slot is free, its handler starts right
    /// here: one that completes at once is concluded at once, as in sequential mode; one that awaits goes on as its
    /// sequence's worker. Otherwise it waits in its sequence. False: stop the loop.
    /// </summary>
    private bool Add(PartitionLane<TKey, TValue> lane, ConsumeResult<TKey, TValue> record)
    {
        RecordSequence<TKey, TValue> sequence = lane.SequenceOf(PerKey ? _keys.Hash() : 0);
        bool inline = false;
        if (lane.InOrder.Count == 0)
        {
            lock (lane)
            {
                inline = !sequence.Running && !sequence.HeldForLoop && !lane.Closing && _slots!.Wait(0);
                sequence.Running |= inline;
            }
        }

        if (inline)
        {
            return StartInline(sequence, record);
        }

        Add(new LaneItem<TKey, TValue>(sequence, lane.Generation, record, null, _keys.ToArray(), _values.ToArray()));
        return true;
    }

    /// <summary>Puts a record (or a poison record) in its lane and sequence, pauses the partition when the lane is full, and starts a worker if none runs.</summary>
    private void Add(LaneItem<TKey, TValue> item)
    {
        PartitionLane<TKey, TValue> lane = item.Lane;
        lane.InOrder.Enqueue(item);
        lock (lane)
        {
            item.Sequence.Waiting.Enqueue(item);
        }

        Track(lane);
        StartIfIdle(item.Sequence);
    }

    /// <summary>Records the lane's depth, and pauses the partition's fetching when the lane is full.</summary>
    private void Track(PartitionLane<TKey, TValue> lane)
    {
        int depth = lane.InOrder.Count;
        if (depth > _deepestLane)
        {
            Volatile.Write(ref _deepestLane, depth);
        }

        if (depth >= _options.MaxQueuedRecordsPerPartition && !lane.PausedFull)
        {
            // librdkafka drops what it fetched past the last record consumed and resumes from there.
            Pause(lane);
            lane.PausedFull = true;
        }
    }

    /// <summary>The handler of a record whose partition has nothing else in hand, started on the loop thread (its sequence is marked running and a slot is taken).</summary>
    private bool StartInline(RecordSequence<TKey, TValue> sequence, ConsumeResult<TKey, TValue> record)
    {
        Activity? activity = _tracing.Start(record);
        ValueTask<HandlerResult> handling = HandleUnder(activity, record);
        PartitionLane<TKey, TValue> lane = sequence.Lane;
        if (!handling.IsCompleted)
        {
            // The record's bytes are still the capture's (nothing was consumed since): copied for a possible dead letter.
            var item = new LaneItem<TKey, TValue>(sequence, lane.Generation, record, null, _keys.ToArray(), _values.ToArray()) { Activity = activity };
            lane.InOrder.Enqueue(item);
            Track(lane);
            Interlocked.Increment(ref _running);
            _ = DrainAsync(sequence, item, handling);
            return true;
        }

        _slots!.Release();
        HandlerResult result = handling.Result;
        lock (lane)
        {
            sequence.Running = false;
        }

        using (activity)
        {
            // Every earlier record of the partition is concluded: this one is concluded as in sequential mode.
            Next next = Conclude(record, result, activity, null);
            if (next == Next.ReadAgain)
            {
                BackOff(lane, record.TopicPartitionOffset, dropLater: true);
            }

            return next != Next.Stop;
        }
    }

    private void StartIfIdle(RecordSequence<TKey, TValue> sequence)
    {
        lock (sequence.Lane)
        {
            if (sequence.Running || sequence.HeldForLoop || sequence.Lane.Closing || sequence.Waiting.Count == 0 || _stopTaking.IsCancellationRequested)
            {
                return;
            }

            sequence.Running = true;
        }

        Interlocked.Increment(ref _running);
        _ = Task.Run(() => DrainAsync(sequence, null, default));
    }

    /// <summary>
    /// A sequence's worker (counted in <c>_running</c> by whoever marked the sequence running): hands its records to the
    /// handler in order, starting with the one in hand if its handler was started on the loop thread, until the
    /// sequence is empty or a record needs the loop.
    /// </summary>
    private async Task DrainAsync(RecordSequence<TKey, TValue> sequence, LaneItem<TKey, TValue>? inHand, ValueTask<HandlerResult> started)
    {
        PartitionLane<TKey, TValue> lane = sequence.Lane;
        try
        {
            while (true)
            {
                LaneItem<TKey, TValue> item;
                bool fresh = inHand is null;
                if (inHand is not null)
                {
                    item = inHand; // its slot is taken and its handler started
                    inHand = null;
                }
                else
                {
                    lock (lane)
                    {
                        if (lane.Closing || sequence.Waiting.Count == 0 || _stopTaking.IsCancellationRequested)
                        {
                            sequence.Running = false;
                            return;
                        }

                        item = sequence.Waiting.Dequeue();
                        if (item.Poison is not null)
                        {
                            HandBack(item, holdForLoop: true); // dead-lettering is the loop's: the sequence waits for it
                            return;
                        }
                    }

                    await _slots!.WaitAsync().ConfigureAwait(false);
                }

                try
                {
                    item.Result = fresh ? await HandleInLaneAsync(item).ConfigureAwait(false) : await started.ConfigureAwait(false);
                }
                finally
                {
                    _slots!.Release();
                }

                if (item.NeedsLoop)
                {
                    lock (lane)
                    {
                        HandBack(item, holdForLoop: true);
                    }

                    return;
                }

                HandBack(item, holdForLoop: false);
            }
        }
        catch (Exception e)
        {
            lock (lane)
            {
                sequence.Running = false;
            }

            Fail("a handler worker failed: " + e.Message, e);
            _stopTaking.Cancel();
        }
        finally
        {
            Interlocked.Decrement(ref _running);
        }
    }

    /// <summary>
    /// A worker gives a record to the loop to conclude. One that needs the loop holds its sequence until the loop
    /// decided, and ends the worker (called under the lane's lock then).
    /// </summary>
    private void HandBack(LaneItem<TKey, TValue> item, bool holdForLoop)
    {
        if (holdForLoop)
        {
            item.HoldsSequence = true;
            item.Sequence.HeldForLoop = true;
            item.Sequence.Running = false;
        }

        _done.Enqueue(item);
    }

    /// <summary>A lane's record in its handler: its span started here, as for a record handled on the loop thread.</summary>
    private ValueTask<HandlerResult> HandleInLaneAsync(LaneItem<TKey, TValue> item)
    {
        ConsumeResult<TKey, TValue> record = item.Record!;
        item.Activity = _tracing.Start(record);
        return HandleUnder(item.Activity, record);
    }

    /// <summary>Starts the handler with the record's span current for it only (an awaiting handler carries it on in its context), not for the thread that starts it.</summary>
    private ValueTask<HandlerResult> HandleUnder(Activity? activity, ConsumeResult<TKey, TValue> record)
    {
        if (activity is null)
        {
            return HandleAsync(record, null);
        }

        try
        {
            return HandleAsync(record, activity);
        }
        finally
        {
            Activity.Current = activity.Parent;
        }
    }

    /// <summary>Takes what the workers handed back, and concludes each partition's records in its order as far as they are done. False: stop the loop.</summary>
    private bool ConcludeDone()
    {
        while (_done.TryDequeue(out LaneItem<TKey, TValue>? item))
        {
            PartitionLane<TKey, TValue> lane = item.Lane;
            if (!TryGetLane(lane.Partition, out PartitionLane<TKey, TValue>? current) || current != lane || item.Generation != lane.Generation)
            {
                Drop(item); // its partition was let go or moved back meanwhile: it is read again
                continue;
            }

            item.Done = true;
            if (!ConcludeInOrder(lane))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>Concludes the lane's records from the oldest on, while they are done. False: stop the loop.</summary>
    private bool ConcludeInOrder(PartitionLane<TKey, TValue> lane)
    {
        while (lane.InOrder.Count > 0 && lane.InOrder.Peek() is { Done: true } item)
        {
            if (item.Result.Outcome == HandlerOutcome.Cancelled)
            {
                return true; // shutting down: neither it nor anything after it is stored; read again
            }

            lane.InOrder.Dequeue();
            Next next;
            Activity? previous = Activity.Current;
            if (item.Poison is { } poison)
            {
                using Activity? activity = _tracing.StartPoison(poison);
                next = DeadLetterPoison(poison, activity);
            }
            else
            {
                Activity.Current = item.Activity; // a dead letter continues the record's span
                try
                {
                    next = Conclude(item.Record!, item.Result, item.Activity, item);
                }
                finally
                {
                    item.Activity?.Dispose();
                }
            }

            Activity.Current = previous;
            if (next == Next.Stop)
            {
                return false;
            }

            if (next == Next.ReadAgain)
            {
                BackOff(lane, item.Position, dropLater: true); // DeadLetter moved the consumer back to the record
            }

            if (item.HoldsSequence)
            {
                Release(item.Sequence);
            }
        }

        return true;
    }

    /// <summary>A record that will not be concluded (its partition was let go or moved back): its span ends, and its sequence no longer waits for it.</summary>
    private void Drop(LaneItem<TKey, TValue> item)
    {
        item.Activity?.Dispose();
        if (item.HoldsSequence)
        {
            Release(item.Sequence);
        }
    }

    private void Release(RecordSequence<TKey, TValue> sequence)
    {
        lock (sequence.Lane)
        {
            sequence.HeldForLoop = false;
        }

        StartIfIdle(sequence);
    }

    /// <summary>
    /// Pauses a partition whose record must be read again; when the back-off is over it resumes and seeks to the
    /// record. After a failed dead letter the lane's later records (fetched before the move back) are dropped, and those
    /// in handlers are dropped when they come back; after an unavailable schema the lane holds only earlier records,
    /// which are still handled.
    /// </summary>
    private void BackOff(PartitionLane<TKey, TValue> lane, TopicPartitionOffset record, bool dropLater)
    {
        if (dropLater)
        {
            lock (lane)
            {
                lane.Generation++;
                foreach (RecordSequence<TKey, TValue> sequence in lane.Sequences)
                {
                    sequence.Waiting.Clear();
                }
            }

            while (lane.InOrder.Count > 0)
            {
                LaneItem<TKey, TValue> later = lane.InOrder.Dequeue();
                if (later.Done)
                {
                    Drop(later); // the others are still in handlers, or were waiting
                }
            }
        }

        Pause(lane);
        lane.BackOffUntil = Stopwatch.GetTimestamp() + (long)(_options.BackOff.TotalSeconds * Stopwatch.Frequency);
        lane.ReadAgainFrom = record;
    }

    /// <summary>Pauses the partition's fetching, counting the lane among the paused unless it already was.</summary>
    private void Pause(PartitionLane<TKey, TValue> lane)
    {
        if (!lane.Paused)
        {
            _pausedLanes++;
        }

        _consumer!.Pause([lane.Partition]);
    }

    /// <summary>Resumes paused partitions whose back-off, if any, is over and whose lane has room again (half of its bound), seeking back to a record to read again.</summary>
    private void ResumeDue()
    {
        if (_pausedLanes == 0)
        {
            return;
        }

        long now = Stopwatch.GetTimestamp();
        foreach (PartitionLane<TKey, TValue> lane in _lanes.Values)
        {
            if (!lane.Paused || lane.BackOffUntil > now || lane.InOrder.Count > _options.MaxQueuedRecordsPerPartition / 2)
            {
                continue;
            }

            TopicPartitionOffset? readAgain = lane.ReadAgainFrom;
            lane.PausedFull = false;
            lane.BackOffUntil = null;
            lane.ReadAgainFrom = null;
            _pausedLanes--;
            _consumer!.Resume([lane.Partition]);
            if (readAgain is not null)
            {
                _consumer.Seek(readAgain);
            }
        }
    }

    /// <summary>
    /// Partition-parallel: before partitions are taken away, lets their records in hand finish (up to RevokeTimeout),
    /// stores what finished, and drops the rest (their new owner reads them). Called on the loop thread, inside Consume.
    /// </summary>
    private void LetLanesGo(List<TopicPartitionOffset> partitions)
    {
        if (_slots is null)
        {
            return;
        }

        var leaving = new List<PartitionLane<TKey, TValue>>();
        foreach (TopicPartitionOffset partition in partitions)
        {
            if (TryGetLane(partition.TopicPartition, out PartitionLane<TKey, TValue>? lane))
            {
                leaving.Add(lane);
            }
        }

        WaitForLanes(leaving, _options.RevokeTimeout);
        if (!ConcludeDone())
        {
            _stopTaking.Cancel();
        }

        foreach (PartitionLane<TKey, TValue> lane in leaving)
        {
            _lanes.Remove((lane.Partition.Topic, lane.Partition.Partition.Value));
            foreach (LaneItem<TKey, TValue> unconcluded in lane.InOrder)
            {
                if (unconcluded.Done)
                {
                    unconcluded.Activity?.Dispose(); // those still in handlers are dropped when they come back
                }
            }

            if (lane.Paused)
            {
                // librdkafka keeps an application's pause across a rebalance: a partition this member gets back would
                // stay paused with no lane left to resume it.
                _pausedLanes--;
                _consumer!.Resume([lane.Partition]);
            }
        }

        _lastLane = null;
    }

    /// <summary>Closes lanes to new work and waits until none runs a handler, concluding what they hand back meanwhile.</summary>
    private void WaitForLanes(List<PartitionLane<TKey, TValue>> lanes, TimeSpan timeout)
    {
        foreach (PartitionLane<TKey, TValue> lane in lanes)
        {
            lock (lane)
            {
                lane.Closing = true;
            }
        }

        var clock = Stopwatch.StartNew();
        while (lanes.Any(Running) && (timeout == Timeout.InfiniteTimeSpan || clock.Elapsed < timeout))
        {
            if (!ConcludeDone())
            {
                _stopTaking.Cancel();
                return;
            }

            if (_abortHandler.IsCancellationRequested && clock.Elapsed > CloseGrace)
            {
                return; // handlers that ignore their token: leave them
            }

            Thread.Sleep(1);
        }

        static bool Running(PartitionLane<TKey, TValue> lane)
        {
            lock (lane)
            {
                return lane.Sequences.Any(s => s.Running);
            }
        }
    }
}
