using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
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

    private readonly Dictionary<TopicPartition, PartitionLane<TKey, TValue>> _lanes = [];
    private readonly ConcurrentQueue<LaneItem<TKey, TValue>> _done = new();
    private SemaphoreSlim? _slots;
    private int _deepestLane;
    private int _running;

    /// <summary>The most records any partition's lane has held at once: what <see cref="KafkaProtobufConsumerOptions.MaxQueuedRecordsPerPartition"/> bounds.</summary>
    internal int DeepestLane => Volatile.Read(ref _deepestLane);

    private void RunPartitionParallel()
    {
        _slots = new SemaphoreSlim(_options.MaxConcurrentRecords, _options.MaxConcurrentRecords);
        try
        {
            while (!_stopTaking.IsCancellationRequested)
            {
                if (!ConcludeDone())
                {
                    return;
                }

                ResumeDue();
                ConsumeResult<TKey, TValue>? result;
                try
                {
                    result = _consumer!.Consume(Volatile.Read(ref _running) > 0 ? BusyWait : IdleWait);
                }
                catch (ConsumeException e) when (e.IsDeserializationFailure())
                {
                    _probe?.Delivered(Name, e.ConsumerRecord.TopicPartitionOffset);
                    Add(new LaneItem<TKey, TValue>(LaneOf(e.ConsumerRecord.TopicPartition), null, e, null, null)); // never inline
                    continue;
                }
                catch (ConsumeException e) when (e.IsSchemaUnavailable())
                {
                    // Not bad data: this partition goes back to the record after a back-off; the others go on.
                    TopicPartitionOffset position = e.ConsumerRecord.TopicPartitionOffset;
                    _probe?.Delivered(Name, position);
                    _status.SchemaWasUnavailable();
                    ConsumerLog.SchemaUnavailable(_logger, Name, Describe(position), _options.BackOff, e.InnerException ?? e);
                    BackOff(LaneOf(position.TopicPartition), position, dropWaiting: false); // what waits came before it
                    _probe?.MovedBack(Name, position, schemaUnavailable: true);
                    continue;
                }
                catch (ConsumeException e) when (e.IsRecoverableConsumerError())
                {
                    ConsumerLog.ConsumerError(_logger, Name, e.Error.ToString());
                    continue;
                }
                catch (KafkaException e)
                {
                    Fail("the consumer failed: " + e.Error, e);
                    return;
                }

                if (result is null || result.IsPartitionEOF)
                {
                    continue;
                }

                _probe?.Delivered(Name, result.TopicPartitionOffset);
                if (!Add(new LaneItem<TKey, TValue>(LaneOf(result.TopicPartition), result, null, _keys.ToArray(), _values.ToArray())))
                {
                    return;
                }
            }

            // Shutting down: start nothing more, let the records in hand finish (their handlers are cancelled when the
            // host's shutdown timeout runs out), and store what finished; Close then commits it.
            WaitForLanes(_lanes.Values.ToList(), Timeout.InfiniteTimeSpan);
            ConcludeDone();
        }
        finally
        {
            _slots.Dispose();
        }
    }

    private PartitionLane<TKey, TValue> LaneOf(TopicPartition partition)
    {
        if (!_lanes.TryGetValue(partition, out PartitionLane<TKey, TValue>? lane))
        {
            lane = new PartitionLane<TKey, TValue>(partition);
            _lanes.Add(partition, lane);
        }

        return lane;
    }

    /// <summary>
    /// Puts a record in its lane, pauses the partition when the lane is full, and starts a worker if none runs. A good
    /// record of an idle lane starts its handler right here: a handler that completes at once is concluded at once,
    /// as in sequential mode; one that awaits continues as the lane's worker. False: stop the loop.
    /// </summary>
    private bool Add(LaneItem<TKey, TValue> item)
    {
        PartitionLane<TKey, TValue> lane = item.Lane;
        int depth;
        bool inline = false;
        lock (lane)
        {
            if (item.Record is not null && !lane.Running && !lane.HeldForLoop && !lane.Closing && lane.Waiting.Count == 0 && _slots!.Wait(0))
            {
                lane.Running = true;
                inline = true;
            }
            else
            {
                lane.Waiting.Enqueue(item);
            }

            depth = lane.Waiting.Count;
        }

        if (inline)
        {
            return StartInline(lane, item);
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
        return true;
    }

    private bool StartInline(PartitionLane<TKey, TValue> lane, LaneItem<TKey, TValue> item)
    {
        Interlocked.Increment(ref _running);
        ValueTask<HandlerResult> handling;
        try
        {
            handling = HandleInLaneAsync(item);
        }
        catch
        {
            _slots!.Release();
            throw;
        }

        if (!handling.IsCompleted)
        {
            _ = ContinueAsync(lane, item, handling); // the lane's worker from here
            return true;
        }

        _slots!.Release();
        item.Result = handling.Result;
        lock (lane)
        {
            lane.Running = false;
            lane.HeldForLoop = item.Result.Outcome != HandlerOutcome.Handled;
        }

        Interlocked.Decrement(ref _running);
        _done.Enqueue(item); // the lane's earlier records are in _done already: concluded first
        return ConcludeDone();
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
        await DrainAsync(lane, counted: false).ConfigureAwait(false);
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

        _ = Task.Run(() => DrainAsync(lane, counted: false));
    }

    /// <summary>A worker: hands the lane's records to the handler in order until the lane is empty or needs the loop.</summary>
    private async Task DrainAsync(PartitionLane<TKey, TValue> lane, bool counted)
    {
        if (!counted)
        {
            Interlocked.Increment(ref _running);
        }

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

    /// <summary>The record's span (current here only: it does not flow back to the worker's loop) and the handler with its retries.</summary>
    private async ValueTask<HandlerResult> HandleInLaneAsync(LaneItem<TKey, TValue> item)
    {
        ConsumeResult<TKey, TValue> record = item.Record!;
        item.Activity = _tracing.Start(record.TopicPartitionOffset, record.Message.Headers, record.Message.Value);
        return await RunWithRetriesAsync(record, item.Activity).ConfigureAwait(false);
    }

    /// <summary>Concludes what the workers handed back, in each lane's order. False: stop the loop.</summary>
    private bool ConcludeDone()
    {
        while (_done.TryDequeue(out LaneItem<TKey, TValue>? item))
        {
            PartitionLane<TKey, TValue> lane = item.Lane;
            if (!_lanes.TryGetValue(lane.Partition, out PartitionLane<TKey, TValue>? current) || current != lane)
            {
                item.Activity?.Dispose(); // its partition was let go meanwhile: its new owner reads it again
                continue;
            }

            Next next;
            Activity? previous = Activity.Current;
            if (item.Poison is { } poison)
            {
                using Activity? activity = _tracing.Start(poison.ConsumerRecord.TopicPartitionOffset, poison.ConsumerRecord.Message?.Headers, null);
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
            if (_lanes.TryGetValue(partition.TopicPartition, out PartitionLane<TKey, TValue>? lane))
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
            _lanes.Remove(lane.Partition);
        }
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
