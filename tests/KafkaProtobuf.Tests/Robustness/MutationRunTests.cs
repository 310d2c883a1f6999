using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using Confluent.Kafka;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Tests.Support;
using Vectors.Telemetry.V1;
using Xunit;
using Xunit.Abstractions;

namespace KafkaProtobuf.Tests.Robustness;

/// <summary>
/// A deterministic mutation run: the Confluent vectors, damaged by seeded mutations (bit flips, byte insertions and
/// deletions, truncations at every offset, varint extensions, count and index edits, header swaps), each judged by the
/// package and by the independent reference decoder in Support/ReferenceFraming.cs. They must agree on the verdict, and
/// on the schema id, path and payload slice when valid; the deserializer must return a message or throw ours.
/// CI runs 200,000 mutations; <c>KAFKAPROTOBUF_MUTATIONS=10000000 dotnet test --filter MutationRun</c> runs the full
/// ten million (add <c>--logger "console;verbosity=detailed"</c> to see the report).
/// </summary>
public class MutationRunTests(ITestOutputHelper output)
{
    private const int Seed = 20261122;

    private enum Mutation
    {
        FlipBit,
        InsertByte,
        DeleteByte,
        Truncate,
        ExtendVarint,
        EditCount,
        EditIndex,
        SwapHeader,
    }

    [Fact]
    public void MutationRun_AgreesWithTheReferenceDecoderOnEveryMutation()
    {
        int total = int.TryParse(Environment.GetEnvironmentVariable("KAFKAPROTOBUF_MUTATIONS"), NumberStyles.Integer, CultureInfo.InvariantCulture, out int n) ? n : 200_000;
        ConfluentVector[] vectors = ConfluentVector.ByName.Values.Where(v => v.Data.Length < 1024).OrderBy(v => v.Name, StringComparer.Ordinal).ToArray();
        var random = new Random(Seed);
        var byCode = new SortedDictionary<string, long>(StringComparer.Ordinal);
        var byMutation = new long[Enum.GetValues<Mutation>().Length];
        var zigzag = new FrameReader(new FramingOptions { MessageIndexEncoding = MessageIndexEncoding.ZigZag, SchemaIdLookup = SchemaIdLookup.HeaderThenPrefix });
        var legacy = new FrameReader(new FramingOptions { MessageIndexEncoding = MessageIndexEncoding.LegacyUnsigned, SchemaIdLookup = SchemaIdLookup.HeaderThenPrefix });
        var devices = new FramedProtobufDeserializer<Device>();
        var clock = Stopwatch.StartNew();

        for (int i = 0; i < total; i++)
        {
            ConfluentVector v = vectors[random.Next(vectors.Length)];
            byte[] data = v.Data;
            byte[]? header = v.Headers.Count > 0 ? v.Headers[0].Value : null;
            bool useLegacy = random.Next(8) == 0;
            var mutation = (Mutation)random.Next(byMutation.Length);
            byMutation[(int)mutation]++;
            bool inHeader = header is not null && random.Next(2) == 0;
            if (mutation == Mutation.SwapHeader)
            {
                // A lost header, or another record's header on this one.
                IReadOnlyList<KeyValuePair<string, byte[]>> other = vectors[random.Next(vectors.Length)].Headers;
                header = header is null && other.Count > 0 ? other[0].Value : null;
            }
            else if (inHeader)
            {
                header = Mutate(header!, mutation, random);
            }
            else
            {
                data = Mutate(data, mutation, random);
            }

            var headers = new Headers();
            if (header is not null)
            {
                headers.Add(SchemaIdHeaderNames.For(v.Component), header);
            }

            var context = new SerializationContext(v.Component, "mutations", headers);
            ReferenceFraming.Verdict expected = ReferenceFraming.Decode(data, header, useLegacy);
            FrameReader reader = useLegacy ? legacy : zigzag;
            bool ok = reader.TryRead(data, context, out Frame frame, out FrameError error);
            string what = $"mutation {i} ({mutation}) of {v.Name}: data {Convert.ToHexString(data)}, header {(header is null ? "none" : Convert.ToHexString(header))}";
            Assert.True(ok == (expected.Error == FrameErrorCode.None), what);
            if (ok)
            {
                Assert.True(expected.SchemaId == frame.SchemaId, what);
                Assert.True(frame.MessageIndexPath.SequenceEqual(expected.Path), what);
                Assert.True(expected.PayloadOffset == frame.PayloadOffset && data.Length - expected.PayloadOffset == frame.Payload.Length, what);
                Count(byCode, "valid");
            }
            else
            {
                Assert.True(new FrameError(expected.Error, expected.Offset, expected.Location, expected.SchemaId) == error, what + ": " + error);
                Count(byCode, error.Code.ToString());
            }

            if (!useLegacy && i % 4 == 0)
            {
                try
                {
                    devices.Deserialize(data, false, context);
                }
                catch (InvalidFrameException)
                {
                    // ours: fine
                }
            }
        }

        double seconds = clock.Elapsed.TotalSeconds;
        output.WriteLine($"{total:N0} mutations in {seconds:N1} s ({total / seconds:N0}/s), seed {Seed}");
        output.WriteLine("by mutation: " + string.Join(", ", Enum.GetValues<Mutation>().Select(m => $"{m} {byMutation[(int)m]:N0}")));
        output.WriteLine("verdicts: " + string.Join(", ", byCode.Select(c => $"{c.Key} {c.Value:N0}")));
        Assert.True(byCode.Count >= 10, "the mutations should reach most error codes: " + string.Join(", ", byCode.Keys));
    }

    private static void Count(SortedDictionary<string, long> counts, string key) => counts[key] = counts.GetValueOrDefault(key) + 1;

    private static byte[] Mutate(byte[] bytes, Mutation mutation, Random random)
    {
        var list = new List<byte>(bytes);
        int at = list.Count == 0 ? 0 : random.Next(list.Count);
        switch (mutation)
        {
            case Mutation.FlipBit when list.Count > 0:
                list[at] ^= (byte)(1 << random.Next(8));
                break;
            case Mutation.InsertByte:
                list.Insert(random.Next(list.Count + 1), (byte)random.Next(256));
                break;
            case Mutation.DeleteByte when list.Count > 0:
                list.RemoveAt(at);
                break;
            case Mutation.Truncate:
                return bytes[..random.Next(bytes.Length + 1)];
            case Mutation.ExtendVarint when list.Count > 0:
                // Give a byte of the id/path region a continuation bit, so the varint swallows what follows.
                list[Math.Min(list.Count - 1, 5 + random.Next(Math.Max(1, Math.Min(8, list.Count - 5))))] |= 0x80;
                break;
            case Mutation.EditCount when list.Count > 5:
                list[list[0] == 1 && list.Count > 17 ? 17 : 5] = (byte)random.Next(256);
                break;
            case Mutation.EditIndex when list.Count > 6:
                int first = list[0] == 1 && list.Count > 18 ? 18 : 6;
                list[Math.Min(list.Count - 1, first + random.Next(3))] = (byte)random.Next(256);
                break;
        }

        return list.ToArray();
    }
}
