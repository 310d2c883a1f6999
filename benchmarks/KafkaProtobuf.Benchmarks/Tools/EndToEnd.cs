using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Resolution;
using KafkaProtobuf.Testing;

namespace KafkaProtobuf.Benchmarks.Tools;

/// <summary>
/// End to end: N framed S records on the embedded cluster, consumed in full by a real consumer with each value
/// deserializer in turn; records/s, GC collections, allocated bytes and CPU time per record. The broker runs in a child
/// process by default, so the consumer's CPU time is its own (on 2 cores an in-process broker competes with it).
/// Run: <c>dotnet run -c Release -- e2e [records] [rounds] [--in-process] [--loops [--handler-delay-ms N] | --wolverine] [--only TEXT]</c>; with
/// <c>--loops</c>, the hosted consumer (sequential, partition-parallel, per key, and with a batch handler, batches of 100
/// one at a time or one partition's each at once) against the hand-written recommended loop (<see cref="LoopComparison"/>)
/// instead of the deserializers; with a handler delay (per record, or per batch for a batch handler), the hosted modes alone;
/// with <c>--wolverine</c>, Wolverine's Kafka listener with a plain byte[] serializer and with KafkaProtobuf.Wolverine
/// (<see cref="WolverineComparison"/>).
/// </summary>
public static class EndToEnd
{
    private const string Topic = "e2e";
    // The mock keeps at most 5 MiB per partition and deletes older records: 300,000 S records need six partitions.
    private const int Partitions = 6;

    // Batch handlers: the batch size of the comparison (a bulk insert of 100 rows, one call).
    private const int BatchSize = 100;

    // Unrecorded rounds first: see Run.
    private const int WarmUpRounds = 2;

    // Per-key mode: more handlers at once than partitions (the records of --loops runs have 1,000 distinct keys).
    private const int PerKeyAtOnce = 4 * Partitions;

    public static void Run(string[] args)
    {
        string[] numbers = args.Skip(1).TakeWhile(a => !a.StartsWith("--", StringComparison.Ordinal)).ToArray();
        int records = numbers.Length > 0 ? int.Parse(numbers[0], CultureInfo.InvariantCulture) : 300_000;
        int rounds = numbers.Length > 1 ? int.Parse(numbers[1], CultureInfo.InvariantCulture) : 3;
        bool inProcess = args.Contains("--in-process");
        bool loops = args.Contains("--loops");
        bool wolverine = args.Contains("--wolverine");

        using Broker broker = inProcess ? Broker.InProcess(records, keyed: loops) : Broker.ChildProcess(records, keyed: loops);
        Console.WriteLine($"{records:N0} S records ({Payloads.Frame(Payloads.Book("S"), SchemaIdPlacement.Prefix).Data.Length} B values) on {Partitions} partitions, " +
                          $"broker {(inProcess ? "in this process" : "in a child process")}, {rounds} rounds, median shown; .NET {Environment.Version}, {Environment.ProcessorCount} cores");
        Console.WriteLine();

        var modes = new List<(string Name, Func<ConsumerConfig, int, Sample> Run)>();
        if (wolverine)
        {
            // --wolverine: Wolverine's listener with a plain byte[] serializer, then with KafkaProtobuf.Wolverine.
            modes.Add(("Wolverine, plain byte[] serializer", (config, n) => Sample.Of(WolverineComparison.Bytes(config, Topic, n), sequential: false)));
            modes.Add(("Wolverine, KafkaProtobuf.Wolverine (ReadProtobuf)", (config, n) => Sample.Of(WolverineComparison.Protobuf(config, Topic, n), sequential: false)));
        }
        else if (loops)
        {
            // The hosted consumer against the hand-written recommended loop: groups, stored offsets, a trivial handler.
            // --handler-delay-ms N: a handler that awaits N ms (I/O) instead of the trivial one.
            int at = Array.IndexOf(args, "--handler-delay-ms");
            TimeSpan delay = at >= 0 ? TimeSpan.FromMilliseconds(int.Parse(args[at + 1], CultureInfo.InvariantCulture)) : TimeSpan.Zero;
            if (delay == TimeSpan.Zero)
            {
                modes.Add(("recommended loop, hand-written", (config, n) => Sample.Of(LoopComparison.HandWritten(config, Topic, n))));
            }

            modes.Add(("hosted consumer (KafkaProtobuf.Hosting)", (config, n) => Sample.Of(LoopComparison.Hosted(config, Topic, n, 1, delay), sequential: delay == TimeSpan.Zero)));
            modes.Add(("hosted consumer with a retry topic (one at a time, the scheduled loop)", (config, n) => Sample.Of(LoopComparison.Hosted(config, Topic, n, 1, delay, retryTopics: true), sequential: delay == TimeSpan.Zero)));
            modes.Add(($"hosted consumer, partition-parallel ({Partitions} at once)", (config, n) => Sample.Of(LoopComparison.Hosted(config, Topic, n, Partitions, delay), sequential: false)));
            modes.Add(($"hosted consumer, partition-parallel per key ({PerKeyAtOnce} at once)", (config, n) => Sample.Of(LoopComparison.Hosted(config, Topic, n, PerKeyAtOnce, delay, HandlingOrder.Key), sequential: false)));
            modes.Add(($"hosted consumer, batches of {BatchSize} (one at a time)", (config, n) => Sample.Of(LoopComparison.Hosted(config, Topic, n, 1, delay, batchSize: BatchSize), sequential: false)));
            modes.Add(($"hosted consumer, batches of {BatchSize}, partition-parallel ({Partitions} at once)", (config, n) => Sample.Of(LoopComparison.Hosted(config, Topic, n, Partitions, delay, batchSize: BatchSize), sequential: false)));
        }
        else
        {
            modes.Add(("raw bytes (byte[] values)", (config, n) => Consume(new ConsumerBuilder<Ignore, byte[]>(config).Build(), n)));
            modes.Add(("KafkaProtobuf sync", (config, n) => Consume(new ConsumerBuilder<Ignore, AddressBook.AddressBook>(config).SetProtobufValueDeserializer().Build(), n)));
        }

#if CONFLUENT
        modes.Add(("Confluent 2.15 sync-over-async", (config, n) => Consume(
            new ConsumerBuilder<Ignore, AddressBook.AddressBook>(config).SetValueDeserializer(ConfluentDeserializers.SyncOverAsync<AddressBook.AddressBook>()).Build(), n)));
#endif

        // --only TEXT: the modes whose name contains it (a profile of one mode, say).
        int only = Array.IndexOf(args, "--only");
        if (only >= 0)
        {
            modes.RemoveAll(m => !m.Name.Contains(args[only + 1], StringComparison.Ordinal));
        }

        var samples = modes.ToDictionary(m => m.Name, _ => new List<Sample>());
        // Rounds -2 and -1 warm up the broker's caches and the JIT, unrecorded: with one, the first recorded rounds still
        // compiled (tiering up, Dynamic PGO's instrumented then optimized code) for 0.1-0.16 µs a record in either loop.
        for (int round = -WarmUpRounds; round < rounds; round++)
        {
            foreach ((string name, Func<ConsumerConfig, int, Sample> run) in modes)
            {
                var config = new ConsumerConfig
                {
                    BootstrapServers = broker.BootstrapServers,
                    GroupId = "e2e-" + Guid.NewGuid().ToString("N"),
                    EnableAutoCommit = false,
                    AutoOffsetReset = AutoOffsetReset.Earliest,
                };
                ProfilerWindow.Armed = round >= 0;
                Sample sample = run(config, records);
                if (round >= 0)
                {
                    samples[name].Add(sample);
                }
            }
        }

        // Each column's own median: on a noisy machine the round with the median throughput need not have the median CPU time.
        Console.WriteLine($"| {(loops ? "Consume loop" : "Value deserializer")} | records/s | gen-0 GCs | GC pause / record | allocated / record | CPU time / record ({(inProcess ? "process, broker included" : "consumer process only")}) | CPU time / record, each round |");
        Console.WriteLine("|---|---:|---:|---:|---:|---:|---|");
        foreach ((string name, List<Sample> list) in samples)
        {
            Sample median = list.OrderBy(s => s.RecordsPerSecond).ElementAt(list.Count / 2);
            double cpu = list.Select(s => s.CpuNanosecondsPerRecord).Order().ElementAt(list.Count / 2);
            double pause = list.Select(s => s.GcPauseNanosecondsPerRecord).Order().ElementAt(list.Count / 2);
            string each = string.Join(", ", list.Select(s => Micros(s.CpuNanosecondsPerRecord)));
            Console.WriteLine($"| {name} | {median.RecordsPerSecond:N0} | {median.Gen0Collections} | {Micros(pause)} µs | {median.AllocatedPerRecord:N0} B | {Micros(cpu)} µs | {each} |");
        }

        // A handler that awaits: whether the consumer kept its slots full, and what the awaits themselves took on this machine.
        foreach ((string name, List<Sample> list) in samples.Where(s => s.Value.All(x => !double.IsNaN(x.AwaitedMilliseconds))))
        {
            Console.WriteLine();
            Console.WriteLine($"{name}: an await took {string.Join(", ", list.Select(s => s.AwaitedMilliseconds.ToString("F2", CultureInfo.InvariantCulture)))} ms on average; " +
                              $"handlers awaiting as one began (itself included): {string.Join(", ", list.Select(s => s.InHandlersAtStart.ToString("F2", CultureInfo.InvariantCulture)))} (each round)");
        }

        // Paired: each mode's CPU per record over the first mode's in the same round (run one after the other, so both
        // met the same neighbours on the machine), then the median of those ratios.
        (string first, List<Sample> baseline) = (modes[0].Name, samples[modes[0].Name]);
        Console.WriteLine();
        foreach ((string name, List<Sample> list) in samples.Skip(1))
        {
            PrintRatios($"{name} / {first}, process CPU", [.. list.Select((s, round) => s.CpuNanosecondsPerRecord / baseline[round].CpuNanosecondsPerRecord)]);
            PrintRatios($"{name} / {first}, loop thread CPU", [.. list.Select((s, round) => s.LoopThreadCpuNanosecondsPerRecord / baseline[round].LoopThreadCpuNanosecondsPerRecord)]);
        }

        // Compiling in the window: a loop whose round met code still to compile (or to tier up) paid for its start there.
        Console.WriteLine();
        foreach ((string name, List<Sample> list) in samples.Where(s => s.Value.All(x => !double.IsNaN(x.JitNanosecondsPerRecord))))
        {
            Console.WriteLine($"{name}, JIT compile time / record in the window: {string.Join(", ", list.Select(s => Micros(s.JitNanosecondsPerRecord)))} µs (each round)");
        }

        // The sequential loops' own threads (the same thread takes and handles each record there).
        Console.WriteLine();
        foreach ((string name, List<Sample> list) in samples.Where(s => s.Value.All(x => !double.IsNaN(x.LoopThreadCpuNanosecondsPerRecord))))
        {
            double median = list.Select(s => s.LoopThreadCpuNanosecondsPerRecord).Order().ElementAt(list.Count / 2);
            Console.WriteLine($"{name}, loop thread CPU / record: median {Micros(median)} µs ({string.Join(", ", list.Select(s => Micros(s.LoopThreadCpuNanosecondsPerRecord)))})");
        }
    }

    /// <summary>The child process's entry: start the cluster, produce, print the address, wait for stdin to close.</summary>
    public static void RunBroker(string[] args)
    {
        int records = int.Parse(args[1], CultureInfo.InvariantCulture);
        using EmbeddedKafkaCluster cluster = Produce(records, args.Contains("--keyed"));
        Console.WriteLine("READY " + cluster.BootstrapServers);
        Console.Out.Flush();
        Console.In.ReadToEnd();
    }

    /// <summary>N framed S records round robin over the partitions; keyed: with 1,000 distinct 4-byte keys (the deserializer runs keep null keys).</summary>
    private static EmbeddedKafkaCluster Produce(int records, bool keyed)
    {
        EmbeddedKafkaCluster cluster = EmbeddedKafkaCluster.Start(3);
        cluster.CreateTopic(Topic, Partitions);
        cluster.CreateTopic(RetryTopicOptions.TopicName(Topic, 1), Partitions); // read, empty, by the mode with a retry topic
        byte[] value = Payloads.Frame(Payloads.Book("S"), SchemaIdPlacement.Prefix).Data;
        ProducerConfig config = cluster.CreateProducerConfig();
        config.LingerMs = 20;
        using IProducer<byte[]?, byte[]> producer = new ProducerBuilder<byte[]?, byte[]>(config).Build();
        for (int i = 0; i < records; i++)
        {
            while (true)
            {
                try
                {
                    producer.Produce(new TopicPartition(Topic, i % Partitions), new Message<byte[]?, byte[]> { Key = keyed ? BitConverter.GetBytes(i % 1000) : null, Value = value });
                    break;
                }
                catch (ProduceException<byte[]?, byte[]> e) when (e.Error.Code == ErrorCode.Local_QueueFull)
                {
                    producer.Poll(TimeSpan.FromMilliseconds(50));
                }
            }
        }

        if (producer.Flush(TimeSpan.FromMinutes(2)) != 0)
        {
            throw new InvalidOperationException("The embedded broker did not take every record.");
        }

        using IConsumer<Ignore, Ignore> probe = new ConsumerBuilder<Ignore, Ignore>(cluster.CreateConsumerConfig()).Build();
        for (int p = 0; p < Partitions; p++)
        {
            WatermarkOffsets offsets = probe.QueryWatermarkOffsets(new TopicPartition(Topic, p), TimeSpan.FromSeconds(10));
            if (offsets.Low.Value != 0)
            {
                throw new InvalidOperationException($"The mock broker already deleted the oldest records of partition {p} (it keeps 5 MiB a partition): produce fewer records.");
            }
        }

        return cluster;
    }

    private static Sample Consume<TValue>(IConsumer<Ignore, TValue> consumer, int records)
    {
        using (consumer)
        {
            consumer.Assign(Enumerable.Range(0, Partitions).Select(p => new TopicPartitionOffset(Topic, p, Offset.Beginning)));
            GC.Collect();
            GC.WaitForPendingFinalizers();
            int gen0 = GC.CollectionCount(0);
            long allocated = GC.GetTotalAllocatedBytes(precise: true);
            long cpu = CpuClock.ProcessNanoseconds();
            var clock = Stopwatch.StartNew();
            int consumed = 0;
            long checksum = 0;
            while (consumed < records)
            {
                ConsumeResult<Ignore, TValue>? result = consumer.Consume(TimeSpan.FromSeconds(30))
                    ?? throw new TimeoutException($"Only {consumed:N0} of {records:N0} records arrived.");
                checksum += result.Message.Value is IMessage m ? m.CalculateSize() : ((byte[]?)(object?)result.Message.Value)?.Length ?? 0;
                consumed++;
            }

            clock.Stop();
            long cpuUsed = CpuClock.ProcessNanoseconds() - cpu;
            GC.KeepAlive(checksum);
            return new Sample(
                records / clock.Elapsed.TotalSeconds,
                GC.CollectionCount(0) - gen0,
                (GC.GetTotalAllocatedBytes(precise: true) - allocated) / (double)records,
                cpuUsed / (double)records);
        }
    }

    private static void PrintRatios(string what, double[] ratios)
    {
        if (ratios.Any(double.IsNaN))
        {
            return; // a mode whose records are handled on several threads has no one loop thread
        }

        double median = ratios.Order().ElementAt(ratios.Length / 2);
        Console.WriteLine($"{what}: median {median:F3} ({string.Join(", ", ratios.Select(r => r.ToString("F2", CultureInfo.InvariantCulture)))})");
    }

    private static string Micros(double nanoseconds) => (nanoseconds / 1e3).ToString("N3", CultureInfo.InvariantCulture);

    private sealed record Sample(double RecordsPerSecond, int Gen0Collections, double AllocatedPerRecord, double CpuNanosecondsPerRecord, double LoopThreadCpuNanosecondsPerRecord = double.NaN)
    {
        public double GcPauseNanosecondsPerRecord { get; init; } = double.NaN;

        public double AwaitedMilliseconds { get; init; } = double.NaN;

        public double InHandlersAtStart { get; init; } = double.NaN;

        public double JitNanosecondsPerRecord { get; init; } = double.NaN;

        /// <summary>A loop's window; <paramref name="sequential"/>: the loop's thread did all its work (not so in partition-parallel modes, nor with a handler that awaits: it goes on on the thread pool).</summary>
        public static Sample Of(EndToEndWindow window, bool sequential = true) =>
            new(window.RecordsPerSecond, window.Gen0Collections, window.AllocatedPerRecord, window.CpuNanosecondsPerRecord, sequential ? window.LoopThreadCpuNanosecondsPerRecord : double.NaN)
            {
                GcPauseNanosecondsPerRecord = window.GcPauseNanosecondsPerRecord,
                AwaitedMilliseconds = window.AwaitedMilliseconds,
                InHandlersAtStart = window.InHandlersAtStart,
                JitNanosecondsPerRecord = window.JitNanosecondsPerRecord,
            };
    }

    private sealed class Broker : IDisposable
    {
        private readonly Process? _child;
        private readonly EmbeddedKafkaCluster? _cluster;

        private Broker(string bootstrapServers, Process? child, EmbeddedKafkaCluster? cluster)
        {
            BootstrapServers = bootstrapServers;
            _child = child;
            _cluster = cluster;
        }

        public string BootstrapServers { get; }

        public static Broker InProcess(int records, bool keyed)
        {
            EmbeddedKafkaCluster cluster = Produce(records, keyed);
            return new Broker(cluster.BootstrapServers, null, cluster);
        }

        public static Broker ChildProcess(int records, bool keyed)
        {
            string self = typeof(EndToEnd).Assembly.Location;
            var start = new ProcessStartInfo("dotnet", [self, "e2e-broker", records.ToString(CultureInfo.InvariantCulture), keyed ? "--keyed" : "--unkeyed"])
            {
                RedirectStandardInput = true,
                RedirectStandardOutput = true,
                UseShellExecute = false,
            };
            Process child = Process.Start(start) ?? throw new InvalidOperationException("Could not start the broker process.");
            string? line;
            while ((line = child.StandardOutput.ReadLine()) is not null && !line.StartsWith("READY ", StringComparison.Ordinal))
            {
            }

            if (line is null)
            {
                throw new InvalidOperationException("The broker process exited before it was ready.");
            }

            return new Broker(line["READY ".Length..], child, null);
        }

        public void Dispose()
        {
            _cluster?.Dispose();
            if (_child is not null)
            {
                _child.StandardInput.Close(); // the child disposes its cluster and exits
                if (!_child.WaitForExit(30_000))
                {
                    _child.Kill(entireProcessTree: true);
                }

                _child.Dispose();
            }
        }
    }
}
