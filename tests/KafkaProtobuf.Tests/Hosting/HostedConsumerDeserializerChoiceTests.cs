using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Hosting;
using Microsoft.Extensions.Hosting;
using Vectors.Telemetry.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// The builder's deserializer choices reach the records a hosted consumer hands over: keys of several types from the
/// given files (<c>WithProtobufKeys(files)</c>), and a typed value deserializer with options of the user's
/// (<c>WithProtobufValues(FramedDeserializerOptions)</c>), here for a producer that writes no message indexes.
/// </summary>
public sealed class HostedConsumerDeserializerChoiceTests : HostedConsumerTestBase
{
    private const int Records = 12;

    private readonly List<IHost> _hosts = [];

    public HostedConsumerDeserializerChoiceTests()
        : base("deserializer-choice")
    {
    }

    protected override void Dispose(bool disposing)
    {
        foreach (IHost host in _hosts)
        {
            host.Dispose();
        }

        base.Dispose(disposing);
    }

    private void Start<TKey>(string topic, Action<KafkaProtobufConsumerBuilder<TKey, Device>> deserializers, Func<ConsumeResult<TKey, Device>, Task> handler)
    {
        var builder = new HostApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        KafkaProtobufConsumerBuilder<TKey, Device> consumer = builder.Services.AddKafkaProtobufConsumer<TKey, Device>(topic, options =>
        {
            options.Consumer = Cluster.CreateConsumerConfig(Group);
            options.Consumer.EnableAutoCommit = null;
            options.Topics.Add(topic);
            options.DeadLetterTopic = topic + ".dlq";
            options.CopyProducer = Cluster.CreateProducerConfig();
            options.FailureExitCode = 0;
        });
        deserializers(consumer);
        consumer.Handle((record, _) => handler(record));
        IHost host = builder.Build();
        _hosts.Add(host);
        host.StartAsync().WaitAsync(Deadline).GetAwaiter().GetResult();
    }

    private void Produce(string topic, Func<int, byte[]> key, Func<int, byte[]> value)
    {
        Cluster.CreateTopic(topic, 1);
        Cluster.CreateTopic(topic + ".dlq", 1);
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(Cluster.CreateProducerConfig()).Build();
        for (int i = 0; i < Records; i++)
        {
            producer.Produce(topic, new Message<byte[], byte[]> { Key = key(i), Value = value(i) });
        }

        Assert.Equal(0, producer.Flush(Deadline));
    }

    private static async Task<List<T>> WhenAll<T>(ConcurrentQueue<T> handled, TaskCompletionSource done)
    {
        await done.Task.WaitAsync(Deadline);
        return [.. handled];
    }

    [Fact]
    public async Task KeysOfSeveralTypes_FromTheGivenFiles_ReachTheHandlerAsTheirOwnTypes()
    {
        var readings = new FramedProtobufSerializer<Reading>(SchemaIdentifier.FromId(7));
        var alerts = new FramedProtobufSerializer<Alert>(SchemaIdentifier.FromId(7));
        var context = new SerializationContext(MessageComponentType.Key, "keyed");
        IMessage KeyOf(int i) => i % 2 == 0 ? new Reading { SensorId = "r" + i } : new Alert { DeviceId = "a" + i, Text = "hot" };
        Produce(
            "keyed",
            i => KeyOf(i) is Reading r ? readings.Serialize(r, context)! : alerts.Serialize((Alert)KeyOf(i), context)!,
            EndToEnd.DeviceRecords.GoodValue);
        var handled = new ConcurrentQueue<IMessage>();
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        Start<IMessage>(
            "keyed",
            consumer => consumer.WithProtobufKeys(TelemetryReflection.Descriptor).WithProtobufValues(),
            record =>
            {
                handled.Enqueue(record.Message.Key);
                if (handled.Count == Records)
                {
                    done.TrySetResult();
                }

                return Task.CompletedTask;
            });

        Assert.Equal(Enumerable.Range(0, Records).Select(KeyOf), await WhenAll(handled, done));
    }

    [Fact]
    public async Task ValuesWithTheUsersOptions_AreReadAsThoseOptionsSay()
    {
        // A producer of old frames: the schema id, then the payload, no message indexes.
        static byte[] WithoutIndexes(int i) => [0, 0, 0, 0, 2, .. new Device { Id = "device-" + i }.ToByteArray()];
        Produce("unindexed", i => [(byte)i], WithoutIndexes);
        var handled = new ConcurrentQueue<string>();
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var options = new FramedDeserializerOptions();
        options.Framing.MessageIndexPresence = MessageIndexPresence.Absent;

        Start<Ignore>(
            "unindexed",
            consumer => consumer.WithProtobufValues(options),
            record =>
            {
                handled.Enqueue(record.Message.Value.Id);
                if (handled.Count == Records)
                {
                    done.TrySetResult();
                }

                return Task.CompletedTask;
            });

        Assert.Equal(Enumerable.Range(0, Records).Select(i => "device-" + i), await WhenAll(handled, done));
    }
}
