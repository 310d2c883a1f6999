using System;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Wolverine;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Wolverine;
using Wolverine.Kafka;
using Wolverine.Runtime.Serialization;

namespace KafkaProtobuf.Benchmarks.Tools;

/// <summary>
/// Wolverine's Kafka listener reading the same records two ways: with KafkaProtobuf.Wolverine (each record read as its
/// Protobuf type by schema id and path, into a handler of that type), and with a plain byte[] serializer (each record's
/// bytes as they are, into a handler of those): what reading Protobuf adds to Wolverine's own cost per record. Both with
/// Wolverine's listener defaults and a trivial handler. The window leaves out the first fifth of the records: Wolverine
/// compiles a handler when its first message arrives, while its listener reads ahead into its buffer, so the first
/// records measure the start; from there consuming, reading and handling go at one rate.
/// </summary>
internal static class WolverineComparison
{
    private static int _handled;
    private static int _outside;

    internal static EndToEndWindow? Window { get; private set; }

    /// <summary>A handler's record: counted in the window once the first fifth was handled.</summary>
    internal static void Handled(int checksum)
    {
        if (Interlocked.Increment(ref _handled) > _outside)
        {
            Window!.Record(checksum);
        }
    }

    public static EndToEndWindow Protobuf(ConsumerConfig config, string topic, int records) =>
        Run(config, records, opts => opts.ListenToKafkaTopic(topic).ReadProtobuf(MultiTypeProtobufDeserializer.ForFiles(AddressBook.AddressbookReflection.Descriptor)));

    public static EndToEndWindow Bytes(ConsumerConfig config, string topic, int records) =>
        Run(config, records, opts => opts.ListenToKafkaTopic(topic).DefaultIncomingMessage<RawRecord>().DefaultSerializer(new RawBytesSerializer()));

    private static EndToEndWindow Run(ConsumerConfig config, int records, Action<WolverineOptions> listen)
    {
        _outside = records / 5;
        _handled = 0;
        var window = Window = new EndToEndWindow(records - _outside);
        using IHost host = Host.CreateDefaultBuilder()
            .ConfigureLogging(logging => logging.ClearProviders())
            .UseWolverine(opts =>
            {
                opts.Discovery.DisableConventionalDiscovery().IncludeType(typeof(WolverineHandlers));
                opts.UseKafka(config.BootstrapServers).ConfigureConsumers(consumer =>
                {
                    consumer.GroupId = config.GroupId;
                    consumer.AutoOffsetReset = AutoOffsetReset.Earliest;
                });
                listen(opts);
            })
            .Build();
        using var timeout = new CancellationTokenSource(TimeSpan.FromMinutes(6));
        host.StartAsync(timeout.Token).GetAwaiter().GetResult();
        try
        {
            if (!window.Finished.Wait(TimeSpan.FromMinutes(5)))
            {
                throw new TimeoutException($"Wolverine handled {window.Count} of {records} records.");
            }
        }
        finally
        {
            host.StopAsync(timeout.Token).GetAwaiter().GetResult();
        }

        return window;
    }
}

/// <summary>A record's bytes, as a plain serializer hands them to Wolverine.</summary>
public sealed record RawRecord(byte[] Value);

/// <summary>Wolverine's serializer contract at its cheapest: the record's bytes, unread.</summary>
internal sealed class RawBytesSerializer : IMessageSerializer
{
    public string ContentType => "application/octet-stream";

    public byte[] Write(Envelope envelope) => ((RawRecord)envelope.Message!).Value;

    public object ReadFromData(Type messageType, Envelope envelope) => new RawRecord(envelope.Data!);

    public object ReadFromData(byte[] data) => new RawRecord(data);

    public byte[] WriteMessage(object message) => ((RawRecord)message).Value;
}

/// <summary>The handlers (public: Wolverine's generated code calls them): as trivial as the loops' (a number from the message into the window's checksum).</summary>
public static class WolverineHandlers
{
    public static void Handle(RawRecord record) => WolverineComparison.Handled(record.Value.Length);

    public static void Handle(AddressBook.AddressBook book) => WolverineComparison.Handled(book.People.Count);
}
