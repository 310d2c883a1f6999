using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Tests.Support;
using Vectors.Telemetry.V1;
using Xunit;
using Xunit.Abstractions;

namespace KafkaProtobuf.Tests.Robustness;

/// <summary>
/// One typed and one multi-type deserializer shared by 8 threads over a million mixed valid and malformed records
/// (<c>KAFKAPROTOBUF_SOAK_RECORDS</c> for more): every result must equal the single-threaded one, and no exception but
/// ours may escape.
/// </summary>
public class SoakTests(ITestOutputHelper output)
{
    private const int Threads = 8;

    [Fact]
    public async Task EightThreadsOverAMillionMixedRecords_GiveTheSingleThreadedResults()
    {
        int total = int.TryParse(Environment.GetEnvironmentVariable("KAFKAPROTOBUF_SOAK_RECORDS"), NumberStyles.Integer, CultureInfo.InvariantCulture, out int n) ? n : 1_000_000;
        var typed = new FramedProtobufDeserializer<Device>();
        MultiTypeProtobufDeserializer multi = MultiTypeProtobufDeserializer.ForFiles(TelemetryReflection.Descriptor);

        // A pool of records: every vector, and seeded damage to each (truncations, flipped bytes).
        var random = new Random(7);
        var pool = new List<(byte[] Data, SerializationContext Context)>();
        foreach (ConfluentVector v in ConfluentVector.ByName.Values.Where(v => v.Data.Length < 2048))
        {
            pool.Add((v.Data, v.Context()));
            for (int k = 0; k < 20; k++)
            {
                byte[] damaged = (byte[])v.Data.Clone();
                if (damaged.Length > 0)
                {
                    damaged[random.Next(damaged.Length)] ^= (byte)(1 << random.Next(8));
                }

                pool.Add((k % 2 == 0 ? damaged : damaged[..random.Next(damaged.Length + 1)], v.Context()));
            }
        }

        string Outcome(int i)
        {
            (byte[] data, SerializationContext context) = pool[i];
            string a = typed.TryDeserialize(data, false, context, out Device? d, out FrameError e1) ? Convert.ToHexString(d!.ToByteArray()) : e1.ToString();
            string b = multi.TryDeserialize(data, false, context, out IMessage? m, out FrameError e2) ? m!.Descriptor.Name + Convert.ToHexString(m.ToByteArray()) : e2.ToString();
            string c;
            try
            {
                c = typed.Deserialize(data, false, context) is { } thrownFree ? "ok" : "null";
            }
            catch (InvalidFrameException ex)
            {
                c = ex.ErrorCode.ToString();
            }

            return a + "|" + b + "|" + c;
        }

        string[] expected = Enumerable.Range(0, pool.Count).Select(Outcome).ToArray();
        Assert.Contains(expected, o => o.Contains("|ok", StringComparison.Ordinal));
        Assert.Contains(expected, o => !o.Contains("|ok", StringComparison.Ordinal));

        var foreign = new List<string>();
        long mismatches = 0;
        using var start = new Barrier(Threads);
        await Task.WhenAll(Enumerable.Range(0, Threads).Select(t => Task.Factory.StartNew(
            () =>
            {
                start.SignalAndWait();
                for (int r = t; r < total; r += Threads)
                {
                    int i = (int)((r * 2654435761L) % pool.Count); // scattered, different per thread
                    try
                    {
                        if (Outcome(i) != expected[i])
                        {
                            Interlocked.Increment(ref mismatches);
                        }
                    }
                    catch (Exception e)
                    {
                        lock (foreign)
                        {
                            foreign.Add(e.GetType().Name + ": " + e.Message);
                        }
                    }
                }
            },
            TaskCreationOptions.LongRunning)));

        output.WriteLine($"{total:N0} records over {Threads} threads, pool of {pool.Count:N0} ({expected.Count(o => o.EndsWith("|ok", StringComparison.Ordinal)):N0} valid)");
        Assert.Empty(foreign);
        Assert.Equal(0, mismatches);
    }
}
