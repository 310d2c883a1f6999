using System;
using System.Diagnostics;
using System.Linq;
using Confluent.Kafka;
using KafkaProtobuf.Framing;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;

namespace KafkaProtobuf.Benchmarks.Tools;

/// <summary>
/// First-record latency: what the first record of a schema costs a fresh consumer (fetch the writer's schema over HTTP
/// from the in-process registry on loopback, build its file, lay out its types, parse) and a fresh producer (register
/// the schema, frame the record). <c>dotnet run -c Release -- cold [rounds]</c>.
/// </summary>
public static class ColdStart
{
    public static void Run(string[] args)
    {
        int rounds = args.Length > 1 ? int.Parse(args[1], System.Globalization.CultureInfo.InvariantCulture) : 200;
        using InProcessSchemaRegistry registry = AddressBookRegistry.Start();
        (byte[] frame, SerializationContext context) = Payloads.Frame(Payloads.Book("S"), SchemaIdPlacement.Prefix);
        double[] consume = Measure(rounds, client =>
        {
            var deserializer = new MultiTypeProtobufDeserializer([AddressBook.AddressbookReflection.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = client } });
            return () => deserializer.Deserialize(frame, false, context);
        }, registry.Url);
        double[] produce = Measure(rounds, client =>
        {
            var serializer = new RegistryProtobufSerializer<AddressBook.AddressBook>(client, null);
            AddressBook.AddressBook book = Payloads.Book("S");
            return () => serializer.Serialize(book, new SerializationContext(MessageComponentType.Value, Payloads.Topic, []));
        }, registry.Url);

        Console.WriteLine($"First record of a schema, {rounds} rounds with a fresh client each, in-process registry on loopback; .NET {Environment.Version}");
        Console.WriteLine("| First record | p50 | p90 | max |");
        Console.WriteLine("|---|---:|---:|---:|");
        Console.WriteLine(Row("consume: fetch, build the writer's file, parse", consume));
        Console.WriteLine(Row("produce: register (already registered: idempotent), frame", produce));
    }

    private static double[] Measure(int rounds, Func<RegistryClient, Func<object?>> prepare, string url)
    {
        var times = new double[rounds];
        for (int i = -5; i < rounds; i++)
        {
            // A fresh client per round: nothing cached. Its creation is not timed; the first record is.
            using var client = new RegistryClient(url);
            Func<object?> first = prepare(client);
            long start = Stopwatch.GetTimestamp();
            first();
            if (i >= 0)
            {
                times[i] = Stopwatch.GetElapsedTime(start).TotalMicroseconds;
            }
        }

        return times.Order().ToArray();
    }

    private static string Row(string name, double[] sorted) =>
        $"| {name} | {sorted[sorted.Length / 2]:N0} µs | {sorted[sorted.Length * 9 / 10]:N0} µs | {sorted[^1]:N0} µs |";
}
