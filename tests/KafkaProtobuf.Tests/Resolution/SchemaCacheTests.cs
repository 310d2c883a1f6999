using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Fuzz;
using KafkaProtobuf.Tests.Support;
using Xunit;
using Xunit.Abstractions;

namespace KafkaProtobuf.Tests.Resolution;

/// <summary>
/// The deserializers' one schema cache (<see cref="WriterSchemaOptions.CacheCapacity"/>), observed through the public
/// deserializer with a counting schema source: what is asked again, round robin over more schema ids than it holds,
/// and what it keeps alive.
/// </summary>
public class SchemaCacheTests(ITestOutputHelper output)
{
    private static readonly Confluent.Kafka.SerializationContext Value = new(Confluent.Kafka.MessageComponentType.Value, "t");

    private static byte[] Frame(int id) => [0x00, (byte)(id >> 24), (byte)(id >> 16), (byte)(id >> 8), (byte)id, 0x00, 0x0a, 0x01, 0x41];

    private sealed class CountingSource(Func<SchemaIdentifier, FileDescriptor?>? files = null) : ISchemaFileSource
    {
        private int _calls;

        public int Calls => Volatile.Read(ref _calls);

        public Task<FileDescriptor?> GetSchemaFileAsync(SchemaIdentifier schemaId, CancellationToken cancellationToken)
        {
            Interlocked.Increment(ref _calls);
            return Task.FromResult(files is null ? Vectors.Telemetry.V1.TelemetryReflection.Descriptor : files(schemaId));
        }
    }

    private static MultiTypeProtobufDeserializer Deserializer(ISchemaFileSource source, int? capacity = null)
    {
        var options = new MultiTypeDeserializerOptions { WriterSchemas = { Source = source } };
        if (capacity is int c)
        {
            options.WriterSchemas.CacheCapacity = c;
        }

        return new MultiTypeProtobufDeserializer([Vectors.Telemetry.V1.Reading.Descriptor], options);
    }

    /// <summary>Reads <paramref name="rounds"/> rounds of ids 1..<paramref name="ids"/> after five rounds of warm-up: the source's calls meanwhile.</summary>
    private static int CallsRoundRobin(MultiTypeProtobufDeserializer deserializer, CountingSource source, int ids, int rounds)
    {
        for (int round = 0; round < 5 + rounds; round++)
        {
            if (round == 5)
            {
                return CountFrom(source.Calls);
            }

            for (int id = 1; id <= ids; id++)
            {
                Assert.IsType<Vectors.Telemetry.V1.Reading>(deserializer.Deserialize(Frame(id), false, Value));
            }
        }

        return 0;

        int CountFrom(int before)
        {
            for (int round = 0; round < rounds; round++)
            {
                for (int id = 1; id <= ids; id++)
                {
                    Assert.IsType<Vectors.Telemetry.V1.Reading>(deserializer.Deserialize(Frame(id), false, Value));
                }
            }

            return source.Calls - before;
        }
    }

    [Fact]
    public void ThreeHundredIdsRoundRobin_WithTheDefaultCapacity_AreAskedOnceEach()
    {
        // The measurement: 300 ids round robin, 60,000 records after warm-up (before: 59,995 resolver calls).
        var source = new CountingSource();
        MultiTypeProtobufDeserializer deserializer = Deserializer(source);

        int calls = CallsRoundRobin(deserializer, source, ids: 300, rounds: 200);

        output.WriteLine($"300 ids, capacity {WriterSchemaOptions.DefaultCacheCapacity}: {source.Calls - calls} calls in warm-up, {calls} in 60,000 records after it");
        Assert.Equal(300, source.Calls);
        Assert.Equal(0, calls);
    }

    [Fact]
    public void RoundRobinOverCapacityPlusOne_AsksAtMostTwiceARound()
    {
        // Plain CLOCK (or LRU) asked for every record here: each entry was evicted just before its turn came.
        const int capacity = 100, rounds = 100;
        var source = new CountingSource();

        int calls = CallsRoundRobin(Deserializer(source, capacity), source, capacity + 1, rounds);

        output.WriteLine($"{capacity + 1} ids, capacity {capacity}: {calls} calls in {rounds * (capacity + 1)} records ({100.0 - (100.0 * calls / (rounds * (capacity + 1))):0.0}% hits)");
        Assert.True(calls <= 2 * rounds, $"{calls} calls in {rounds} rounds");
    }

    [Fact]
    public void RoundRobinOverTwiceTheCapacity_HalfTheRecordsStillHit()
    {
        // Half is the most any cache of this capacity can hit on this pattern; plain CLOCK hit none.
        const int capacity = 100, rounds = 100;
        var source = new CountingSource();

        int calls = CallsRoundRobin(Deserializer(source, capacity), source, 2 * capacity, rounds);

        output.WriteLine($"{2 * capacity} ids, capacity {capacity}: {calls} calls in {rounds * 2 * capacity} records ({100.0 - (100.0 * calls / (rounds * 2 * capacity)):0.0}% hits)");
        Assert.True(calls <= rounds * capacity, $"{calls} calls in {rounds * 2 * capacity} records");
    }

    [Fact]
    public void RoundRobinOverTwiceTheDefaultCapacity_HalfTheRecordsStillHit()
    {
        const int rounds = 30;
        int ids = 2 * WriterSchemaOptions.DefaultCacheCapacity;
        var source = new CountingSource();

        int calls = CallsRoundRobin(Deserializer(source), source, ids, rounds);

        output.WriteLine($"{ids} ids, capacity {WriterSchemaOptions.DefaultCacheCapacity}: {calls} calls in {rounds * ids} records");
        Assert.True(calls <= rounds * ids / 2, $"{calls} calls in {rounds * ids} records");
    }

    [Fact]
    public void ANewSchemaInUse_GetsIn_OnItsSecondMiss_WhenTheCacheIsFull()
    {
        const int capacity = 100;
        var source = new CountingSource();
        MultiTypeProtobufDeserializer deserializer = Deserializer(source, capacity);
        CallsRoundRobin(deserializer, source, capacity, rounds: 1); // full

        int before = source.Calls;
        for (int i = 0; i < 50; i++)
        {
            deserializer.Deserialize(Frame(5000), false, Value);
        }

        Assert.Equal(2, source.Calls - before);
    }

    [Fact]
    public void AHotSchema_SurvivesAStreamOfNewOnes()
    {
        int hotCalls = 0;
        var source = new CountingSource(id =>
        {
            if (id.Id == 7)
            {
                Interlocked.Increment(ref hotCalls);
            }

            return Vectors.Telemetry.V1.TelemetryReflection.Descriptor;
        });
        MultiTypeProtobufDeserializer deserializer = Deserializer(source, capacity: 100);

        // Schema 7 is read between every new schema, 2,000 of them, far more than the cache holds.
        for (int id = 1000; id < 3000; id++)
        {
            deserializer.Deserialize(Frame(7), false, Value);
            deserializer.Deserialize(Frame(id), false, Value);
        }

        Assert.Equal(1, hotCalls);
    }

    [Fact]
    public void FilesBeyondTheCapacity_AreNotKeptAlive()
    {
        // Each answer a new FileDescriptor object (as a registry client without a cache gives): only the cached ones may stay.
        const int capacity = 100;
        var files = new List<WeakReference>();
        var source = new CountingSource(_ =>
        {
            FileDescriptor file = WriterFile.From(Vectors.Telemetry.V1.TelemetryReflection.Descriptor);
            lock (files)
            {
                files.Add(new WeakReference(file));
            }

            return file;
        });
        MultiTypeProtobufDeserializer deserializer = Deserializer(source, capacity);

        DeserializeIds(deserializer, 1, 700);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();

        int alive = files.Count(f => f.IsAlive);
        Assert.Equal(700, files.Count);
        Assert.True(alive <= capacity, $"{alive} of 700 files still referenced with a capacity of {capacity}");
        GC.KeepAlive(deserializer);
    }

    [Fact]
    public void UnknownIdsAndFailures_AreNotKept()
    {
        bool down = true;
        var source = new CountingSource(id => id.Id == 1 ? (down ? throw new InvalidOperationException("down") : Vectors.Telemetry.V1.TelemetryReflection.Descriptor) : null);
        MultiTypeProtobufDeserializer deserializer = Deserializer(source);

        for (int i = 0; i < 3; i++)
        {
            Assert.Throws<SchemaUnavailableException>(() => deserializer.Deserialize(Frame(1), false, Value));
            Assert.Equal(FrameErrorCode.UnknownSchemaId, Assert.Throws<InvalidFrameException>(() => deserializer.Deserialize(Frame(2), false, Value)).ErrorCode);
        }

        down = false;
        Assert.IsType<Vectors.Telemetry.V1.Reading>(deserializer.Deserialize(Frame(1), false, Value));
        Assert.IsType<Vectors.Telemetry.V1.Reading>(deserializer.Deserialize(Frame(1), false, Value));
        Assert.Equal(7, source.Calls); // 3 failures, 3 unknowns, 1 answer kept
    }

    [Fact]
    public async Task WarmUp_AsksTheSourceAhead_AndRecordsThenHitTheCache()
    {
        var source = new CountingSource(id => id.Id is < 10 ? Vectors.Telemetry.V1.TelemetryReflection.Descriptor : null);
        MultiTypeProtobufDeserializer deserializer = Deserializer(source);

        IReadOnlyList<SchemaIdentifier> unknown = await deserializer.WarmUpAsync([SchemaIdentifier.FromId(1), SchemaIdentifier.FromId(2), SchemaIdentifier.FromId(11)]);
        int afterWarmUp = source.Calls;
        deserializer.Deserialize(Frame(1), false, Value);
        deserializer.Deserialize(Frame(2), false, Value);

        Assert.Equal([SchemaIdentifier.FromId(11)], unknown);
        Assert.Equal(3, afterWarmUp);
        Assert.Equal(afterWarmUp, source.Calls);
        await Assert.ThrowsAsync<InvalidOperationException>(() => MultiTypeProtobufDeserializer.ForFiles(Vectors.Telemetry.V1.TelemetryReflection.Descriptor).WarmUpAsync([SchemaIdentifier.FromId(1)]));
    }

    [Fact]
    public void ConcurrentReadersAndNewSchemas_AlwaysGetTheRightType()
    {
        var deserializer = new MultiTypeProtobufDeserializer(
            [Vectors.Telemetry.V1.Reading.Descriptor, global::Tests.Inventory.V1.StockLevel.Descriptor],
            new MultiTypeDeserializerOptions
            {
                WriterSchemas =
                {
                    Source = new FunctionSchemaSource(id => id.Id % 2 == 0 ? Vectors.Telemetry.V1.TelemetryReflection.Descriptor : global::Tests.Inventory.V1.InventoryReflection.Descriptor),
                    CacheCapacity = 500,
                },
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
        // A separate method, so no local of this frame keeps a file alive.
        for (int id = from; id <= to; id++)
        {
            deserializer.Deserialize(Frame(id), false, Value);
        }
    }
}
