using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Runtime;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace KafkaProtobuf.Benchmarks.Tools;

/// <summary>
/// The hosted consumer against the README's hand-written loop, both in a consumer group with stored offsets and
/// auto-commit, both with the same trivial handler. The window runs from the first record handled to the last, so that
/// the host's start and the group's join are not counted: the cost per record is the loop's alone.
/// </summary>
internal static class LoopComparison
{
    /// <summary>
    /// The README's recommended loop, written by hand, on a thread of its own as a service runs it and as the hosted
    /// consumer runs its loop. (On the main thread it was not like for like: in a <c>perf</c> profile the hosted loop's
    /// thread spent about 2% more of its samples in glibc's <c>free</c> than the main thread did on the same work.)
    /// </summary>
    public static EndToEndWindow HandWritten(ConsumerConfig config, string topic, int records)
    {
        EndToEndWindow? window = null;
        Exception? failure = null;
        var thread = new Thread(() =>
        {
            try
            {
                window = HandWrittenLoop(config, topic, records);
            }
            catch (Exception e)
            {
                failure = e;
            }
        })
        { Name = "hand-written loop" };
        thread.Start();
        if (!thread.Join(TimeSpan.FromMinutes(6)))
        {
            throw new TimeoutException("The hand-written loop did not end.");
        }

        return window ?? throw new InvalidOperationException("The hand-written loop failed.", failure);
    }

    private static EndToEndWindow HandWrittenLoop(ConsumerConfig config, string topic, int records)
    {
        config.EnableAutoCommit = true;
        config.EnableAutoOffsetStore = false;
        var window = new EndToEndWindow(records);
        using IConsumer<Ignore, AddressBook.AddressBook> consumer = new ConsumerBuilder<Ignore, AddressBook.AddressBook>(config).SetProtobufValueDeserializer().Build();
        using IProducer<byte[], byte[]> deadLetters = new ProducerBuilder<byte[], byte[]>(new ProducerConfig { BootstrapServers = config.BootstrapServers }).Build();
        using var stop = new CancellationTokenSource(TimeSpan.FromMinutes(5));
        consumer.Subscribe(topic);
        while (!window.Done)
        {
            try
            {
                ConsumeResult<Ignore, AddressBook.AddressBook> result = consumer.Consume(stop.Token);
                Handle(result.Message.Value, window).GetAwaiter().GetResult();
                consumer.StoreOffset(result);
            }
            catch (ConsumeException e) when (e.IsDeserializationFailure())
            {
                consumer.DeadLetter(e, deadLetters, topic + ".dlq", TimeSpan.FromSeconds(10));
            }
            catch (ConsumeException e) when (e.IsSchemaUnavailable())
            {
                consumer.Seek(e.ConsumerRecord.TopicPartitionOffset);
            }
            catch (ConsumeException e) when (e.IsRecoverableConsumerError())
            {
                Console.Error.WriteLine(e.Error.Reason);
            }
        }

        consumer.Close();
        return window;
    }

    /// <summary>The same in <see cref="KafkaProtobufServiceCollectionExtensions.AddKafkaProtobufConsumer{TKey, TValue}(IServiceCollection, string, Action{KafkaProtobufConsumerOptions})"/>.</summary>
    /// <param name="config">The consumer's settings.</param>
    /// <param name="topic">The topic.</param>
    /// <param name="records">How many records to wait for.</param>
    /// <param name="maxConcurrentHandlers">Records (with batches: batches) in handlers at once.</param>
    /// <param name="handlerDelay">How long the handler awaits per record (with batches: per batch).</param>
    /// <param name="order">Partition or per-key order.</param>
    /// <param name="batchSize">0: a record handler; else a batch handler with batches of up to this many records.</param>
    /// <param name="retryTopics">With a retry topic (<c>{topic}.retry.1</c>, empty): one at a time, through the scheduled loop that waits for due records (the cost of one loop for every mode).</param>
    public static EndToEndWindow Hosted(ConsumerConfig config, string topic, int records, int maxConcurrentHandlers, TimeSpan handlerDelay, HandlingOrder order = HandlingOrder.Partition, int batchSize = 0, bool retryTopics = false)
    {
        config.EnableAutoCommit = null;
        var window = new EndToEndWindow(records);
        var builder = new HostApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        KafkaProtobufConsumerBuilder<Ignore, AddressBook.AddressBook> consumer = builder.Services
            .AddKafkaProtobufConsumer<Ignore, AddressBook.AddressBook>("e2e", options =>
            {
                options.Consumer = config;
                options.Topics.Add(topic);
                options.DeadLetterTopic = topic + ".dlq";
                options.CopyProducer = new ProducerConfig { BootstrapServers = config.BootstrapServers };
                options.MaxConcurrentHandlers = maxConcurrentHandlers;
                options.HandlingOrder = order;
                options.Batches.MaxSize = Math.Max(batchSize, 1);
                if (retryTopics)
                {
                    options.RetryTopics.Delays.Add(TimeSpan.FromSeconds(1));
                }
            })
            .WithProtobufValues();
        if (batchSize > 0)
        {
            consumer.HandleBatch(handlerDelay == TimeSpan.Zero
                ? (batch, _) => HandleBatch(batch, window)
                : async (batch, token) =>
                {
                    await window.AwaitAsync(handlerDelay, token); // one bulk insert, one HTTP call for the batch
                    await HandleBatch(batch, window);
                });
        }
        else
        {
            consumer.Handle(handlerDelay == TimeSpan.Zero
                ? (record, _) => Handle(record.Message.Value, window)
                : async (record, token) =>
                {
                    await window.AwaitAsync(handlerDelay, token); // a database write, an HTTP call
                    await Handle(record.Message.Value, window);
                });
        }

        using IHost host = builder.Build();
        host.StartAsync().GetAwaiter().GetResult();
        if (!window.Finished.Wait(TimeSpan.FromMinutes(5)))
        {
            throw new TimeoutException($"Only {window.Count:N0} of {records:N0} records arrived.");
        }

        host.StopAsync().GetAwaiter().GetResult();
        return window;
    }

    private static Task HandleBatch(IReadOnlyList<ConsumeResult<Ignore, AddressBook.AddressBook>> batch, EndToEndWindow window)
    {
        foreach (ConsumeResult<Ignore, AddressBook.AddressBook> record in batch)
        {
            window.Record(record.Message.Value.People.Count);
        }

        return Task.CompletedTask;
    }

    /// <summary>The trivial handler both loops run: a checksum of the message.</summary>
    private static Task Handle(AddressBook.AddressBook book, EndToEndWindow window)
    {
        window.Record(book.People.Count);
        return Task.CompletedTask;
    }
}

/// <summary>CPU, allocation and wall time from the first record to the last: what the loop costs per record.</summary>
internal sealed class EndToEndWindow(int records)
{
    private readonly ManualResetEventSlim _finished = new();
    private int _count;
    private long _checksum;
    private long _cpuAtFirst;
    private long? _threadCpuAtFirst;
    private int _threadAtFirst;
    private long _allocatedAtFirst;
    private int _gen0AtFirst;
    private long _startTicks;
    private TimeSpan _gcPauseAtFirst;
    private TimeSpan _jitAtFirst;
    private int _inHandlers;
    private long _awaits;
    private long _inHandlersAtStarts;
    private long _awaitedTicks;

    public int Count => Volatile.Read(ref _count);

    public bool Done => Count >= records;

    public ManualResetEventSlim Finished => _finished;

    public double RecordsPerSecond { get; private set; }

    public int Gen0Collections { get; private set; }

    public double AllocatedPerRecord { get; private set; }

    public double CpuNanosecondsPerRecord { get; private set; }

    /// <summary>The time the GC paused the process, per record: what a loop that keeps records alive across collections pays.</summary>
    public double GcPauseNanosecondsPerRecord { get; private set; }

    /// <summary>
    /// The time the JIT compiled methods (on any thread), per record: code a round met for the first time, or compiled
    /// again at a higher tier. A service pays it once; a round that pays it again measures its start, not its loop.
    /// </summary>
    public double JitNanosecondsPerRecord { get; private set; }

    /// <summary>With a handler that awaits: how long an await took on average (a timer's own granularity and load stretch it).</summary>
    public double AwaitedMilliseconds => _awaits == 0 ? double.NaN : _awaitedTicks * 1000.0 / Stopwatch.Frequency / _awaits;

    /// <summary>With a handler that awaits: how many handlers (this one included) were awaiting on average as one began: how well the consumer fills its slots.</summary>
    public double InHandlersAtStart => _awaits == 0 ? double.NaN : _inHandlersAtStarts / (double)_awaits;

    /// <summary>A handler's await (its I/O), counted: how long it took and how many awaited beside it.</summary>
    public async Task AwaitAsync(TimeSpan delay, CancellationToken token)
    {
        Interlocked.Add(ref _inHandlersAtStarts, Interlocked.Increment(ref _inHandlers));
        long start = Stopwatch.GetTimestamp();
        try
        {
            await Task.Delay(delay, token);
        }
        finally
        {
            Interlocked.Add(ref _awaitedTicks, Stopwatch.GetTimestamp() - start);
            Interlocked.Increment(ref _awaits);
            Interlocked.Decrement(ref _inHandlers);
        }
    }

    /// <summary>
    /// The consume loop's own thread's CPU per record, without librdkafka's threads (whose work is the same in every
    /// loop, and whose share of the process's CPU moves with fetch timing); NaN unless the first and last record were
    /// handled on one thread, as in the sequential loops.
    /// </summary>
    public double LoopThreadCpuNanosecondsPerRecord { get; private set; } = double.NaN;

    public void Record(int checksum)
    {
        Interlocked.Add(ref _checksum, checksum);
        int count = Interlocked.Increment(ref _count);
        if (count == 1)
        {
            ProfilerWindow.Opened();
            _cpuAtFirst = CpuClock.ProcessNanoseconds();
            _threadCpuAtFirst = CpuClock.ThreadNanoseconds();
            _threadAtFirst = Environment.CurrentManagedThreadId;
            _allocatedAtFirst = GC.GetTotalAllocatedBytes(precise: true);
            _gen0AtFirst = GC.CollectionCount(0);
            _startTicks = Stopwatch.GetTimestamp();
            _gcPauseAtFirst = GC.GetTotalPauseDuration();
            _jitAtFirst = JitInfo.GetCompilationTime();
        }
        else if (count == records)
        {
            double seconds = (Stopwatch.GetTimestamp() - _startTicks) / (double)Stopwatch.Frequency;
            int measured = records - 1;
            CpuNanosecondsPerRecord = (CpuClock.ProcessNanoseconds() - _cpuAtFirst) / (double)measured;
            if (Environment.CurrentManagedThreadId == _threadAtFirst && CpuClock.ThreadNanoseconds() is { } threadCpu && _threadCpuAtFirst is { } first)
            {
                LoopThreadCpuNanosecondsPerRecord = (threadCpu - first) / (double)measured;
            }
            AllocatedPerRecord = (GC.GetTotalAllocatedBytes(precise: true) - _allocatedAtFirst) / (double)measured;
            Gen0Collections = GC.CollectionCount(0) - _gen0AtFirst;
            GcPauseNanosecondsPerRecord = (GC.GetTotalPauseDuration() - _gcPauseAtFirst).TotalNanoseconds / measured;
            JitNanosecondsPerRecord = (JitInfo.GetCompilationTime() - _jitAtFirst).TotalNanoseconds / measured;
            RecordsPerSecond = measured / seconds;
            ProfilerWindow.Closed();
            GC.KeepAlive(_checksum);
            _finished.Set();
        }
    }
}
