using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Threading;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Resolution;

namespace KafkaProtobuf.Benchmarks.Tools;

/// <summary>
/// Per-call latency percentiles and thread-pool work items per record for the S record, ours against Confluent's
/// (without and with a registry client). BenchmarkDotNet reports means; a consumer's tail is what its p99 says.
/// Run: <c>dotnet run -c Release -- latency [calls]</c>.
/// </summary>
public static class LatencyProbe
{
    public static void Run(string[] args)
    {
        int calls = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 200_000;
        AddressBook.AddressBook book = Payloads.Book("S");
        (byte[] frame, SerializationContext context) = Payloads.Frame(book, SchemaIdPlacement.Prefix);
        byte[] payload = book.ToByteArray();

        var cases = new List<(string Name, Func<object?> Call)>
        {
            ("bare ParseFrom(payload)", () => AddressBook.AddressBook.Parser.ParseFrom(payload.AsSpan())),
            ("KafkaProtobuf sync", MakeOurs(frame, context)),
            ("KafkaProtobuf FrameReader.TryRead alone (no parse, no allocation)", () => ReadFrame(frame, context)),
        };
#if CONFLUENT
        IDeserializer<AddressBook.AddressBook> confluent = ConfluentDeserializers.SyncOverAsync<AddressBook.AddressBook>();
        cases.Add(("Confluent 2.15 sync-over-async", () => confluent.Deserialize(frame, false, context)));
        using KafkaProtobuf.Testing.InProcessSchemaRegistry registry = AddressBookRegistry.Start();
        IDeserializer<AddressBook.AddressBook> withRegistry = ConfluentDeserializers.SyncOverAsyncWithRegistry<AddressBook.AddressBook>(registry.Url);
        cases.Add(("Confluent 2.15 sync-over-async + registry client", () => withRegistry.Deserialize(frame, false, context)));
#endif

        Console.WriteLine($"{calls:N0} timed calls each, S record ({frame.Length} B), after 2 s of warm-up; .NET {Environment.Version}");
        Console.WriteLine();
        Console.WriteLine("| Deserializer | p50 | p90 | p99 | p99.9 | mean | thread-pool work items / record | allocated / record |");
        Console.WriteLine("|---|---:|---:|---:|---:|---:|---:|---:|");
        foreach ((string name, Func<object?> call) in cases)
        {
            Console.WriteLine(Measure(name, call, calls));
        }

#if CONFLUENT
        Console.WriteLine();
        Console.WriteLine($"(the in-process registry answered {registry.TotalRequestCount} HTTP request(s))");
#endif
    }

    private static byte[]? ReadFrame(byte[] frame, SerializationContext context) =>
        FrameReader.Default.TryRead(frame, context, out Frame read, out _) && read.Payload.Length > 0 ? null : frame;

    private static Func<object?> MakeOurs(byte[] frame, SerializationContext context)
    {
        var ours = new FramedProtobufDeserializer<AddressBook.AddressBook>();
        return () => ours.Deserialize(frame, false, context);
    }

    private static string Measure(string name, Func<object?> call, int calls)
    {
        // Warm up by time, not count: tiered compilation promotes hot methods only after a quiet period of 100 ms,
        // so a short warm-up would measure unoptimised code.
        long warmUntil = Stopwatch.GetTimestamp() + (2 * Stopwatch.Frequency);
        while (Stopwatch.GetTimestamp() < warmUntil)
        {
            for (int i = 0; i < 1000; i++)
            {
                call();
            }
        }

        var ticks = new long[calls];
        GC.Collect();
        long workItems = ThreadPool.CompletedWorkItemCount;
        long allocated = GC.GetTotalAllocatedBytes(precise: true);
        long started = Stopwatch.GetTimestamp();
        for (int i = 0; i < calls; i++)
        {
            long t0 = Stopwatch.GetTimestamp();
            call();
            ticks[i] = Stopwatch.GetTimestamp() - t0;
        }

        long elapsed = Stopwatch.GetTimestamp() - started;
        double workItemsPerRecord = (double)(ThreadPool.CompletedWorkItemCount - workItems) / calls;
        double allocatedPerRecord = (double)(GC.GetTotalAllocatedBytes(precise: true) - allocated) / calls;
        Array.Sort(ticks);

        string Ns(double t) => (t * 1e9 / Stopwatch.Frequency).ToString("N0", CultureInfo.InvariantCulture) + " ns";
        double Percentile(double p) => ticks[Math.Min(ticks.Length - 1, (int)(p * ticks.Length))];
        return $"| {name} | {Ns(Percentile(0.50))} | {Ns(Percentile(0.90))} | {Ns(Percentile(0.99))} | {Ns(Percentile(0.999))} | " +
               $"{Ns((double)elapsed / calls)} | {workItemsPerRecord.ToString("0.00", CultureInfo.InvariantCulture)} | " +
               $"{allocatedPerRecord.ToString("N0", CultureInfo.InvariantCulture)} B |";
    }
}
