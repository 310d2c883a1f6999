using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Scheduling;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting.Scheduling;

/// <summary>A record of the scheduler's tests: a position and a key, no Kafka client.</summary>
internal sealed class TestRecord : ScheduledWork
{
    public TestRecord(int partition, long offset, string key, bool poison = false)
    {
        Key = key;
        Place(SchedulerHarness.Topic, new Partition(partition), new Offset(offset), KafkaProtobuf.Hosting.Consuming.KeyHash.Of(System.Text.Encoding.UTF8.GetBytes(key)), needsHandler: !poison);
    }

    public string Key { get; }

    /// <summary>Told when the scheduler keeps or releases the record.</summary>
    public SchedulerHarness? Harness { get; set; }

    public override string ToString() => "p" + Partition.Value + "@" + Offset.Value + "(" + Key + ")";

    /// <summary>Each record kept counts 1 against the read-ahead budget.</summary>
    public override void Keep()
    {
        ReadAheadBytes = 1;
        Harness?.Retained.Add(this);
    }

    public override void Release() => Harness?.Released(this);
}

/// <summary>
/// The scheduler with everything around it faked and nothing waited for: handlers are tasks the test completes (their
/// continuations run at once, on the test's thread), workers start in place, time moves when the test says, and a wait
/// for a handler runs the test's next step instead. The fake handler, conclusion and Kafka client record what the
/// scheduler asked of them and check, as it happens, what must always hold: a record is concluded only after its
/// handler finished, each partition in its order with no record skipped; equal keys are never in handlers at once; no
/// record is handled twice within one reading of its partition.
/// </summary>
internal sealed class SchedulerHarness : IPartitionFetching
{
    public const string Topic = "orders";

    private readonly Dictionary<TestRecord, TaskCompletionSource<HandlerResult>> _running = [];
    private readonly Dictionary<int, long> _nextToConclude = [];
    private readonly Dictionary<int, int> _reading = []; // per partition: bumped when it is read again from an earlier record
    private readonly HashSet<(int Partition, long Offset, int Reading)> _handled = [];
    private readonly HashSet<(int Partition, uint KeyHash)> _keysInHandlers = [];
    private readonly HashSet<TestRecord> _finished = [];

    /// <param name="maxConcurrent">Handler slots.</param>
    /// <param name="perKey">Per-key order.</param>
    /// <param name="readAhead">The read-ahead budget, in records: each record retained counts 1.</param>
    /// <param name="revokeTimeout">How long a revoke waits for handlers.</param>
    public SchedulerHarness(int maxConcurrent = 2, bool perKey = false, int readAhead = 1_000, TimeSpan? revokeTimeout = null)
    {
        Settings = new SchedulerSettings
        {
            MaxConcurrentHandlers = maxConcurrent,
            SequencesPerPartition = perKey ? 4 * maxConcurrent : 1,
            ReadAgainDelay = TimeSpan.FromSeconds(1),
            RevokeTimeout = revokeTimeout ?? TimeSpan.FromSeconds(30),
        };
        Pausing = new PartitionPausing(this, readAhead, Clock);
        Scheduler = new PartitionScheduler<TestRecord>(HandleAsync, Conclude, Pausing, Settings, Clock, new InPlace(), Stopping.Token);
    }

    /// <summary>The consumer's shutdown signal, which comes before <see cref="PartitionScheduler{TWork}.Drain"/>.</summary>
    public CancellationTokenSource Stopping { get; } = new();

    public SchedulerSettings Settings { get; }

    public SchedulerTime Clock { get; } = new();

    /// <summary>The read-ahead budget and the delays, as the loop's: the loop resumes what is due (<see cref="PartitionPausing.ResumeDue"/>).</summary>
    public PartitionPausing Pausing { get; }

    public PartitionScheduler<TestRecord> Scheduler { get; }

    /// <summary>The most records the scheduler kept at once (each counts 1).</summary>
    public long MostReadAhead { get; private set; }

    /// <summary>Handlers that complete as soon as they start (like a synchronous handler); otherwise the test completes them.</summary>
    public bool CompleteAtOnce { get; set; }

    /// <summary>What concluding a record answers (a dead letter written, not written, a stop); Continue unless set.</summary>
    public Func<TestRecord, AfterConclusion> Conclusion { get; set; } = _ => AfterConclusion.Continue;

    /// <summary>Told of every resume, with the offset the consumer seeks to (the fake consumer's hook).</summary>
    public Action<int, long?>? ReadAgainFrom { get; set; }

    /// <summary>The next offset each partition must conclude.</summary>
    public long NextToConclude(int partition) => _nextToConclude.GetValueOrDefault(partition, -1);

    public List<TestRecord> Started { get; } = [];

    public List<TestRecord> Concluded { get; } = [];

    public List<TestRecord> Dropped { get; } = [];

    public List<TestRecord> Retained { get; } = [];

    public HashSet<int> Paused { get; } = [];

    public List<(int Partition, long? ReadAgainFrom)> Resumed { get; } = [];

    public IReadOnlyCollection<TestRecord> InHandlers => _running.Keys;

    public bool Offer(TestRecord record) => Offer(record, out _);

    public bool Offer(TestRecord record, out bool kept)
    {
        record.Harness = this;
        _nextToConclude.TryAdd(record.Partition.Value, record.Offset.Value);
        bool goOn = Scheduler.Offer(record, out kept);
        MostReadAhead = Math.Max(MostReadAhead, Pausing.ReadAheadBytes);
        AssertNoRuleBroken();
        return goOn;
    }

    /// <summary>The loop's revoke: the scheduler lets the partitions go, then their pauses end.</summary>
    public bool Revoke(params TopicPartition[] partitions)
    {
        bool goOn = Scheduler.Revoke(partitions);
        Pausing.LetGo(partitions);
        return goOn;
    }

    /// <summary>The loop's step: concludes what workers handed back.</summary>
    public bool ConcludeHandedBack()
    {
        bool goOn = Scheduler.ConcludeHandedBack();
        AssertNoRuleBroken();
        return goOn;
    }

    /// <summary>Rules broken inside a handler call, where an exception would only become the record's result.</summary>
    public List<string> BrokenRules { get; } = [];

    public void AssertNoRuleBroken() => Assert.Empty(BrokenRules);

    private void Check(bool rule, string broken)
    {
        if (!rule)
        {
            BrokenRules.Add(broken);
            Assert.Fail(broken);
        }
    }

    public void OfferAll(params TestRecord[] records)
    {
        foreach (TestRecord record in records)
        {
            Assert.True(Offer(record));
        }
    }

    public bool IsRunning(TestRecord record) => _running.ContainsKey(record);

    /// <summary>Completes a record's handler (its worker goes on at once, on this thread), then lets the loop conclude.</summary>
    public void Complete(TestRecord record, HandlerOutcome outcome = HandlerOutcome.Handled, bool conclude = true)
    {
        Assert.True(_running.Remove(record, out TaskCompletionSource<HandlerResult>? handler), record + " is not in a handler");
        Finish(record);

        // A continuation runs in place only where no synchronization context is current (xunit sets one).
        SynchronizationContext? context = SynchronizationContext.Current;
        SynchronizationContext.SetSynchronizationContext(null);
        try
        {
            handler!.SetResult(new HandlerResult(outcome, outcome == HandlerOutcome.Handled ? null : new InvalidOperationException("handler failed on " + record)));
        }
        finally
        {
            SynchronizationContext.SetSynchronizationContext(context);
        }
        AssertNoRuleBroken();
        if (conclude)
        {
            Assert.True(ConcludeHandedBack());
        }
    }

    /// <summary>The partition was given to this member anew, to be read from <paramref name="from"/>: a new reading.</summary>
    public void NewReading(int partition, long from)
    {
        _reading[partition] = _reading.GetValueOrDefault(partition) + 1;
        _nextToConclude[partition] = from;
    }

    private ValueTask<HandlerResult> HandleAsync(TestRecord record)
    {
        // A broken rule is kept, not only thrown: the scheduler turns what a handler throws into a result.
        Check(record.NeedsHandler, "a poison record reached a handler: " + record);
        Check(_handled.Add((record.Partition.Value, record.Offset.Value, _reading.GetValueOrDefault(record.Partition.Value))), record + " was handled twice in one reading");
        Check(_keysInHandlers.Add((record.Partition.Value, record.KeyHash)), "two records of key " + record.Key + " in handlers at once: " + record);
        Started.Add(record);
        if (CompleteAtOnce)
        {
            Finish(record);
            return new ValueTask<HandlerResult>(default(HandlerResult));
        }

        var handler = new TaskCompletionSource<HandlerResult>(); // continuations run in place: the worker goes on inside Complete
        _running.Add(record, handler);
        return new ValueTask<HandlerResult>(handler.Task);
    }

    private AfterConclusion Conclude(TestRecord record)
    {
        Assert.True(!record.NeedsHandler || _finished.Contains(record), record + " was concluded before its handler finished");
        Assert.Equal(_nextToConclude[record.Partition.Value], record.Offset.Value); // in order, nothing skipped
        Concluded.Add(record);
        AfterConclusion after = Conclusion(record);
        if (after.IsContinue)
        {
            _nextToConclude[record.Partition.Value] = record.Offset.Value + 1;
        }
        else if (after.IsReadAgain)
        {
            _reading[record.Partition.Value] = _reading.GetValueOrDefault(record.Partition.Value) + 1; // the next conclusion is this record again
        }

        return after;
    }

    /// <summary>The scheduler let go of a record it will not conclude.</summary>
    public void Released(TestRecord record)
    {
        Assert.DoesNotContain(record, Concluded.Skip(Concluded.LastIndexOf(record) + 1)); // not concluded since its last offer
        Dropped.Add(record);
    }

    void IPartitionFetching.Pause(TopicPartition partition) => Paused.Add(partition.Partition.Value);

    void IPartitionFetching.Resume(TopicPartition partition)
    {
        Paused.Remove(partition.Partition.Value);
        Resumed.Add((partition.Partition.Value, null));
        ReadAgainFrom?.Invoke(partition.Partition.Value, null);
    }

    /// <summary>A seek comes right after its partition's resume: it says where that resume reads from.</summary>
    void IPartitionFetching.Seek(TopicPartitionOffset record)
    {
        int partition = record.Partition.Value;
        Assert.True(Resumed.Count > 0 && Resumed[^1] == (partition, null), "a seek without a resume of " + record.TopicPartition);
        Resumed[^1] = (partition, record.Offset.Value);
        ReadAgainFrom?.Invoke(partition, record.Offset.Value);
    }

    private void Finish(TestRecord record)
    {
        _finished.Add(record);
        _keysInHandlers.Remove((record.Partition.Value, record.KeyHash));
    }
}

/// <summary>Threads for workers that are the caller's own: a worker starts and runs, up to its first await, in place.</summary>
internal sealed class InPlace : TaskScheduler
{
    public override int MaximumConcurrencyLevel => 1;

    protected override void QueueTask(Task task) => TryExecuteTask(task);

    protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued) => TryExecuteTask(task);

    protected override IEnumerable<Task> GetScheduledTasks() => [];
}

/// <summary>
/// Time that moves only when told. The scheduler makes a timer only to end a wait for handed-back work: that wait runs
/// the test's next step (a handler completing on another thread, as it were), or lets its time run out.
/// </summary>
internal sealed class SchedulerTime : TimeProvider
{
    private readonly Queue<Action> _duringWaits = new();

    public TimeSpan Time { get; set; } = TimeSpan.FromHours(1);

    public int Waits { get; private set; }

    public override long TimestampFrequency => TimeSpan.TicksPerSecond;

    public override long GetTimestamp() => Time.Ticks;

    /// <summary>What happens during the next wait.</summary>
    public void DuringNextWait(Action step) => _duringWaits.Enqueue(step);

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        Waits++;
        Assert.True(Waits < 1_000, "the scheduler waits for ever");
        if (_duringWaits.TryDequeue(out Action? step))
        {
            step();
        }
        else
        {
            Time += dueTime; // nothing came back: the wait ran out
        }

        callback(state); // the wait ends either way; the scheduler looks again at what runs
        return new Stopped();
    }

    private sealed class Stopped : ITimer
    {
        public bool Change(TimeSpan dueTime, TimeSpan period) => false;

        public void Dispose()
        {
        }

        public System.Threading.Tasks.ValueTask DisposeAsync() => default;
    }
}
