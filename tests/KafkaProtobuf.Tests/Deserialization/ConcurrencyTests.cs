using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Tests.Support;
using Vectors.Telemetry.V1;
using Xunit;
using static KafkaProtobuf.Tests.Support.Hex;

namespace KafkaProtobuf.Tests.Deserialization;

public class ConcurrencyTests
{
    private const int Threads = 8;
    private const int Rounds = 200;

    /// <summary>What one call produced: the message bytes, or the error.</summary>
    private static string Outcome(Func<IMessage?> call)
    {
        try
        {
            IMessage? message = call();
            return message is null ? "null" : "ok " + Convert.ToHexString(message.ToByteArray());
        }
        catch (InvalidFrameException e)
        {
            return "error " + e.Error + " " + e.Component;
        }
    }

    [Fact]
    public async Task OneInstanceSharedByEightThreads_GivesTheSingleThreadedResults()
    {
        var deserializer = new FramedProtobufDeserializer<Device>();
        var inputs = new List<(byte[] Data, bool IsNull, SerializationContext Context)>();
        foreach (ConfluentVector v in ConfluentVector.ByName.Values.Where(v => v.Type == Device.Descriptor.FullName))
        {
            inputs.Add((v.Data, false, v.Context()));
            inputs.Add((v.Data[..^1], false, v.Context()));
            inputs.Add((v.Data.Length > 6 ? v.Data[..6] : v.Data, false, v.Context()));
        }

        inputs.Add(([], true, new SerializationContext(MessageComponentType.Key, "t", [])));
        inputs.Add((Bytes("00 0000002a 03"), false, new SerializationContext(MessageComponentType.Value, "t", [])));
        inputs.Add((Bytes("7b"), false, new SerializationContext(MessageComponentType.Key, "t", [])));

        string[] expected = inputs.Select(i => Outcome(() => deserializer.Deserialize(i.Data, i.IsNull, i.Context))).ToArray();
        Assert.Contains(expected, o => o.StartsWith("ok", StringComparison.Ordinal));
        Assert.Contains(expected, o => o.StartsWith("error", StringComparison.Ordinal));

        using var start = new Barrier(Threads);
        Task<List<string>>[] workers = Enumerable.Range(0, Threads).Select(t => Task.Factory.StartNew(
            () =>
            {
                start.SignalAndWait();
                var mismatches = new List<string>();
                for (int round = 0; round < Rounds; round++)
                {
                    for (int k = 0; k < inputs.Count; k++)
                    {
                        int i = (k + (t * 7) + round) % inputs.Count; // each thread walks the inputs in its own order
                        (byte[] data, bool isNull, SerializationContext context) = inputs[i];
                        string outcome = t % 2 == 0
                            ? Outcome(() => deserializer.Deserialize(data, isNull, context))
                            : Outcome(() => deserializer.DeserializeAsync(data, isNull, context).GetAwaiter().GetResult());
                        if (outcome != expected[i])
                        {
                            mismatches.Add($"thread {t} input {i}: {outcome} != {expected[i]}");
                        }
                    }
                }

                return mismatches;
            },
            TaskCreationOptions.LongRunning)).ToArray();

        List<string>[] results = await Task.WhenAll(workers);
        Assert.Empty(results.SelectMany(r => r));
    }
}
