using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// Partition-parallel mode (<see cref="KafkaProtobufConsumerOptions.MaxConcurrentRecords"/> above 1). The loop thread
/// alone talks to the consumer: it consumes, puts each record in its partition's lane, pauses a partition whose lane is
/// full, and concludes what the workers hand back (stores offsets, writes dead letters, moves back), in each lane's
/// order. Workers only run handlers: one per lane at a time, at most MaxConcurrentRecords at once. So a partition's
/// records are handled in order, and an offset is stored only once every earlier record of its partition is done.
/// </summary>
internal sealed partial class KafkaProtobufConsumerService<TKey, TValue>
{
    private static readonly TimeSpan BusyWait = TimeSpan.FromMilliseconds(2);
    private static readonly TimeSpan IdleWait = TimeSpan.FromMilliseconds(50);

    private readonly Dictionary<(string Topic, int Partition), PartitionLane<TKey, TValue>> _lanes = [];
    private readonly ConcurrentQueue<LaneItem<TKey, TValue>> _done = new();
    private SemaphoreSlim? _slots;
    private PartitionLane<TKey, TValue>? _lastLane; // records come in runs of one partition: most lookups end here
    private int _deepestLane;
    private int _running;

    /// <summary>The most records any partition's lane has held at once: what <see cref="KafkaProtobufConsumerOptions.MaxQueuedRecordsPerPartition"/> bounds.</summary>
    internal int DeepestLane => Volatile.Read(ref _deepestLane);

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
                Add(new LaneItem<TKey, TValue>(LaneOf(unread!.ConsumerRecord.Topic, unread.ConsumerRecord.Partition), null, unread, null, null)); // never inline
            }
            else if (taken == Taken.SchemaUnavailable)
            {
                // This partition goes back to the record after a back-off; the others go on.
                TopicPartitionOffset position = unread!.ConsumerRecord.TopicPartitionOffset;
                BackOff(LaneOf(position.Topic, position.Partition), position, dropWaiting: false); // what waits came before it
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
            lane = new PartitionLane<TKey, TValue>(new TopicPartition(topic, partition));
            _lanes.Add((topic, partition.Value), lane);
        }

        _lastLane = lane;
        return lane;
    }

    private bool TryGetLane(TopicPartition partition, [NotNullWhen(true)] out PartitionLane<TKey, TValue>? lane) => _lanes.TryGetValue((partition.Topic, partition.Partition.Value), out lane);

    /// <summary>
    /// A good record: an idle lane's handler starts right here (a handler that completes at once is concluded at once,
    /// as in sequential mode; one that awaits continues as the lane's worker); otherwise it waits in its lane. False:
    /// stop the loop.
    /// </summary>
    private bool Add(PartitionLane<TKey, TValue> lane, ConsumeResult<TKey, TValue> record)
    {
        bool inline;
        lock (lane)
        {
            inline = !lane.Running && !lane.HeldForLoop && !lane.Closing && lane.Waiting.Count == 0 && _slots!.Wait(0);
            lane.Running |= inline;
        }

        if (inline)
        {
            return StartInline(lane, record);
        }

        Add(new LaneItem<TKey, TValue>(lane, record, null, _keys.ToArray(), _values.ToArray()));
        return true;
    }

    /// <summary>Puts a record (or a poison record) in its lane, pauses the partition when the lane is full, and starts a worker if none runs.</summary>
    private void Add(LaneItem<TKey, TValue> item)
    {
        PartitionLane<TKey, TValue> lane = item.Lane;
        int depth;
        lock (lane)
        {
            lane.Waiting.Enqueue(item);
            depth = lane.Waiting.Count;
        }

        if (depth > _deepestLane)
        {
            Volatile.Write(ref _deepestLane, depth);
        }

        if (depth >= _options.MaxQueuedRecordsPerPartition && !lane.PausedFull)
        {
            // librdkafka drops what it fetched past the last record consumed and resumes from there.
            _consumer!.Pause([lane.Partition]);
            lane.PausedFull = true;
        }

        StartIfIdle(lane);
    }

    private bool StartInline(PartitionLane<TKey, TValue> lane, ConsumeResult<TKey, TValue> record)
    {
        Interlocked.Increment(ref _running);
        Activity? activity = _tracing.Start(record.Topic, record.Partition, record.Offset, record.Message.Headers, record.Message.Value);
        ValueTask<HandlerResult> handling;
        try
        {
            handling = HandleAsync(record, activity);
        }
        finally
        {
            if (activity is not null)
            {
                Activity.Current = activity.Parent; // current for the handler, not for the loop
            }
        }

        if (!handling.IsCompleted)
        {
            // The record's bytes are still the capture's (nothing was consumed since): copied for a possible dead letter.
            _ = ContinueAsync(lane, new LaneItem<TKey, TValue>(lane, record, null, _keys.ToArray(), _values.ToArray()) { Activity = activity }, handling);
            return true;
        }

        _slots!.Release();
        HandlerResult result = handling.Result;
        lock (lane)
        {
            lane.Running = false;
        }

        Interlocked.Decrement(ref _running);
        if (!ConcludeDone())
        {
            activity?.Dispose();
            return false; // the lane's earlier records are concluded first
        }

        if (result.Outcome != HandlerOutcome.Handled)
        {
            lock (lane)
            {
                lane.HeldForLoop = true;
            }

            _done.Enqueue(new LaneItem<TKey, TValue>(lane, record, null, _keys.ToArray(), _values.ToArray()) { Activity = activity, Result = result });
            return ConcludeDone();
        }

        using (activity)
        {
            return Conclude(record, result, activity, null) != Next.Stop;
        }
    }

    /// <summary>The worker of a lane whose first record's handler went asynchronous on the loop thread.</summary>
    private async Task ContinueAsync(PartitionLane<TKey, TValue> lane, LaneItem<TKey, TValue> item, ValueTask<HandlerResult> handling)
    {
        try
        {
            item.Result = await handling.ConfigureAwait(false);
        }
        catch (Exception e)
        {
            lock (lane)
            {
                lane.Running = false;
            }

            Interlocked.Decrement(ref _running);
            Fail("a handler worker failed: " + e.Message, e);
            _stopTaking.Cancel();
            return;
        }
        finally
        {
            _slots!.Release();
        }

        bool held = item.Result.Outcome != HandlerOutcome.Handled;
        if (held)
        {
            lock (lane)
            {
                lane.HeldForLoop = true;
                lane.Running = false;
            }

            Interlocked.Decrement(ref _running);
            _done.Enqueue(item);
            return;
        }

        _done.Enqueue(item);
        Interlocked.Decrement(ref _running); // DrainAsync counts itself
        await DrainAsync(lane).ConfigureAwait(false);
    }

    private void StartIfIdle(PartitionLane<TKey, TValue> lane)
    {
        lock (lane)
        {
            if (lane.Running || lane.HeldForLoop || lane.Closing || lane.Waiting.Count == 0 || _stopTaking.IsCancellationRequested)
            {
                return;
            }

            lane.Running = true;
        }

        _ = Task.Run(() => DrainAsync(lane));
    }

    /// <summary>A worker: hands the lane's records to the handler in order until the lane is empty or needs the loop.</summary>
    private async Task DrainAsync(PartitionLane<TKey, TValue> lane)
    {
        Interlocked.Increment(ref _running);
        try
        {
            while (true)
            {
                LaneItem<TKey, TValue> item;
                lock (lane)
                {
                    if (lane.Closing || lane.Waiting.Count == 0 || _stopTaking.IsCancellationRequested)
                    {
                        lane.Running = false;
                        return;
                    }

                    item = lane.Waiting.Dequeue();
                    if (item.Poison is not null)
                    {
                        // Dead-lettering is the loop's; the lane waits for it.
                        lane.HeldForLoop = true;
                        lane.Running = false;
                        _done.Enqueue(item);
                        return;
                    }
                }

                await _slots!.WaitAsync().ConfigureAwait(false);
                try
                {
                    item.Result = await HandleInLaneAsync(item).ConfigureAwait(false);
                }
                finally
                {
                    _slots.Release();
                }

                if (item.Result.Outcome != HandlerOutcome.Handled)
                {
                    lock (lane)
                    {
                        lane.HeldForLoop = true;
                        lane.Running = false;
                    }

                    _done.Enqueue(item);
                    return;
                }

                _done.Enqueue(item);
            }
        }
        catch (Exception e)
        {
            lock (lane)
            {
                lane.Running = false;
            }

            Fail("a handler worker failed: " + e.Message, e);
            _stopTaking.Cancel();
        }
        finally
        {
            Interlocked.Decrement(ref _running);
        }
    }

    /// <summary>The record's span (current for its handler only, not for the thread that starts it) and the handler with its retries.</summary>
    private ValueTask<HandlerResult> HandleInLaneAsync(LaneItem<TKey, TValue> item)
    {
        ConsumeResult<TKey, TValue> record = item.Record!;
        item.Activity = _tracing.Start(record.Topic, record.Partition, record.Offset, record.Message.Headers, record.Message.Value);
        if (item.Activity is null)
        {
            return HandleAsync(record, null);
        }

        try
        {
            return HandleAsync(record, item.Activity); // an awaiting handler carries the span on in its context
        }
        finally
        {
            Activity.Current = item.Activity.Parent;
        }
    }

    /// <summary>Concludes what the workers handed back, in each lane's order. False: stop the loop.</summary>
    private bool ConcludeDone()
    {
        while (_done.TryDequeue(out LaneItem<TKey, TValue>? item))
        {
            PartitionLane<TKey, TValue> lane = item.Lane;
            if (!TryGetLane(lane.Partition, out PartitionLane<TKey, TValue>? current) || current != lane)
            {
                item.Activity?.Dispose(); // its partition was let go meanwhile: its new owner reads it again
                continue;
            }

            if (item.Result.Outcome == HandlerOutcome.Cancelled)
            {
                item.Activity?.Dispose(); // shutting down: not stored, read again; its lane stays held
                continue;
            }

            Next next;
            Activity? previous = Activity.Current;
            if (item.Poison is { } poison)
            {
                using Activity? activity = _tracing.Start(poison.ConsumerRecord.Topic, poison.ConsumerRecord.Partition, poison.ConsumerRecord.Offset, poison.ConsumerRecord.Message?.Headers, null);
                ConsumerTracing.Failed(activity, poison.InnerException ?? poison);
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

            if (item.Poison is not null || item.Result.Outcome != HandlerOutcome.Handled)
            {
                if (next == Next.ReadAgain)
                {
                    BackOff(lane, item.Position, dropWaiting: true); // DeadLetter moved the consumer back to the record
                }

                lock (lane)
                {
                    lane.HeldForLoop = false;
                }

                StartIfIdle(lane);
            }
        }

        return true;
    }

    /// <summary>
    /// Pauses a partition whose record must be read again; when the back-off is over it resumes and seeks to the
    /// record. After a failed dead letter the lane's waiting records came after it (fetched before the move back) and
    /// are dropped; after an unavailable schema they came before it and are still handled.
    /// </summary>
    private void BackOff(PartitionLane<TKey, TValue> lane, TopicPartitionOffset record, bool dropWaiting)
    {
        lock (lane)
        {
            if (dropWaiting)
            {
                lane.Waiting.Clear();
            }

            lane.BackOffUntil = Stopwatch.GetTimestamp() + (long)(_options.BackOff.TotalSeconds * Stopwatch.Frequency);
            lane.ReadAgainFrom = record;
        }

        _consumer!.Pause([lane.Partition]);
    }

    /// <summary>Resumes partitions whose back-off is over or whose lane has room again.</summary>
    private void ResumeDue()
    {
        long now = Stopwatch.GetTimestamp();
        foreach (PartitionLane<TKey, TValue> lane in _lanes.Values)
        {
            TopicPartitionOffset? readAgain = null;
            bool resume;
            lock (lane)
            {
                if (lane.BackOffUntil is { } until && until <= now)
                {
                    lane.BackOffUntil = null;
                    readAgain = lane.ReadAgainFrom;
                    lane.ReadAgainFrom = null;
                    resume = !lane.PausedFull || lane.Waiting.Count <= _options.MaxQueuedRecordsPerPartition / 2;
                    if (resume)
                    {
                        lane.PausedFull = false;
                    }
                    else
                    {
                        lane.ReadAgainFrom = readAgain; // still full: resume (and seek) once it has room
                        readAgain = null;
                    }
                }
                else
                {
                    resume = lane.PausedFull && lane.BackOffUntil is null && lane.Waiting.Count <= _options.MaxQueuedRecordsPerPartition / 2;
                    if (resume)
                    {
                        lane.PausedFull = false;
                        readAgain = lane.ReadAgainFrom;
                        lane.ReadAgainFrom = null;
                    }
                }
            }

            if (resume)
            {
                _consumer!.Resume([lane.Partition]);
                if (readAgain is not null)
                {
                    _consumer.Seek(readAgain);
                }

                StartIfIdle(lane);
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
            if (lane.PausedFull || lane.BackOffUntil is not null)
            {
                // librdkafka keeps an application's pause across a rebalance: a partition this member gets back would
                // stay paused with no lane left to resume it.
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
                return lane.Running;
            }
        }
    }

    private static ConsumeResult<byte[], byte[]> RawOf(LaneItem<TKey, TValue> item) => new()
    {
        TopicPartitionOffset = item.Record!.TopicPartitionOffset,
        Message = new Message<byte[], byte[]>
        {
            Key = item.Key!,
            Value = item.Value!,
            Headers = item.Record.Message.Headers,
            Timestamp = item.Record.Message.Timestamp,
        },
    };
}
