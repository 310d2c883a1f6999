using System;
using System.Threading;
using System.Threading.Tasks;
using KafkaProtobuf.Tests.Support;
using Xunit;

namespace KafkaProtobuf.Tests.Resolution;

/// <summary>
/// The bounded cache behind the deserializers' resolver answers, observed through the public deserializer: it is
/// internal, so these tests drive it with a counting resolver and watch what is asked again.
/// </summary>
public class ResolverCacheTests
{
    private static readonly Confluent.Kafka.SerializationContext Value = new(Confluent.Kafka.MessageComponentType.Value, "t");

    private static byte[] Frame(int id) => [0x00, (byte)(id >> 24), (byte)(id >> 16), (byte)(id >> 8), (byte)id, 0x00, 0x0a, 0x01, 0x41];

    [Fact]
    public void TheTwoHundredFiftySeventhSchema_IsCachedToo_ByEvictingAColdOne()
    {
        // Before: the cache stopped adding at 256 answers, so every record of a 257th schema asked the resolver again.
        int calls = 0;
        var deserializer = new MultiTypeProtobufDeserializer(
            [Vectors.Telemetry.V1.Reading.Descriptor],
            new MultiTypeDeserializerOptions { SchemaFileResolver = _ => { Interlocked.Increment(ref calls); return Vectors.Telemetry.V1.TelemetryReflection.Descriptor; } });

        for (int id = 1; id <= 300; id++)
        {
            Assert.IsType<Vectors.Telemetry.V1.Reading>(deserializer.Deserialize(Frame(id), false, Value));
        }

        Assert.Equal(300, calls);
        for (int i = 0; i < 1000; i++)
        {
            deserializer.Deserialize(Frame(300), false, Value);
        }

        Assert.Equal(300, calls); // the newest answer stays
    }

    [Fact]
    public void SchemasReadOften_SurviveAStreamOfNewOnes()
    {
        int hotCalls = 0;
        var deserializer = new MultiTypeProtobufDeserializer(
            [Vectors.Telemetry.V1.Reading.Descriptor],
            new MultiTypeDeserializerOptions
            {
                SchemaFileResolver = id =>
                {
                    if (id.Id == 7)
                    {
                        Interlocked.Increment(ref hotCalls);
                    }

                    return Vectors.Telemetry.V1.TelemetryReflection.Descriptor;
                },
            });

        // Schema 7 is read between every new schema: CLOCK gives it a second chance each time the hand comes round.
        for (int id = 1000; id < 3000; id++)
        {
            deserializer.Deserialize(Frame(7), false, Value);
            deserializer.Deserialize(Frame(id), false, Value);
        }

        Assert.Equal(1, hotCalls);
    }

    [Fact]
    public void NewFileObjectsFromAResolver_AreNotAllKeptAlive()
    {
        // Before: one table per FileDescriptor object, kept for ever; a resolver that rebuilds files grew it without bound.
        var first = new WeakReference(null);
        var deserializer = new MultiTypeProtobufDeserializer(
            [Vectors.Telemetry.V1.Reading.Descriptor],
            new MultiTypeDeserializerOptions
            {
                SchemaFileResolver = id =>
                {
                    Google.Protobuf.Reflection.FileDescriptor file = WriterFile.From(Vectors.Telemetry.V1.TelemetryReflection.Descriptor);
                    if (id.Id == 1)
                    {
                        first.Target = file;
                    }

                    return file;
                },
            });

        DeserializeIds(deserializer, 1, 700);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();

        Assert.False(first.IsAlive, "the first schema's file is still referenced after 700 newer ones");
        GC.KeepAlive(deserializer);
    }

    [Fact]
    public void ConcurrentReadersAndNewSchemas_AlwaysGetTheRightType()
    {
        var deserializer = new MultiTypeProtobufDeserializer(
            [Vectors.Telemetry.V1.Reading.Descriptor, global::Tests.Inventory.V1.StockLevel.Descriptor],
            new MultiTypeDeserializerOptions
            {
                SchemaFileResolver = id => id.Id % 2 == 0 ? Vectors.Telemetry.V1.TelemetryReflection.Descriptor : global::Tests.Inventory.V1.InventoryReflection.Descriptor,
            });

        Parallel.For(0, 8, worker =>
        {
            var random = new Random(worker);
            for (int i = 0; i < 20_000; i++)
            {
                int id = random.Next(1, 2000);
                Google.Protobuf.IMessage? message = deserializer.Deserialize(Frame(id), false, Value);
                Assert.Equal(id % 2 == 0 ? typeof(Vectors.Telemetry.V1.Reading) : typeof(global::Tests.Inventory.V1.StockLevel), message!.GetType());
            }
        });
    }

    private static void DeserializeIds(MultiTypeProtobufDeserializer deserializer, int from, int to)
    {
        // A separate method, so no local of this frame keeps the first file alive.
        for (int id = from; id <= to; id++)
        {
            deserializer.Deserialize(Frame(id), false, Value);
        }
    }
}
