using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Confluent.Kafka;
using CsCheck;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Tests.Support;
using Vectors.Telemetry.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Properties;

/// <summary>
/// Valid frames, then random damage: bit flips, byte edits, insertions, deletions, truncations, varint extensions and
/// dropped or stray schema-id headers. Whatever comes out, the package must agree with the independent test decoder
/// and report bad input only as <see cref="InvalidFrameException"/>.
/// </summary>
public class MutationProperties
{
    private const int Iterations = 20_000;

    private enum Damage
    {
        FlipBit,
        SetByte,
        InsertByte,
        DeleteByte,
        Truncate,
        ExtendVarint,
        Append,
    }

    private sealed record Mutation(Damage Kind, int Position, byte Value);

    private sealed record MutatedCase(FrameCase Original, byte[] Data, byte[]? Header, bool DamageHeader)
    {
        public override string ToString() =>
            $"{Original} -> data={Convert.ToHexString(Data)} header={(Header is null ? "none" : Convert.ToHexString(Header))}";
    }

    private static readonly Gen<Mutation> Mutations = Gen.Select(
        Gen.Int[0, 6].Select(i => (Damage)i),
        Gen.Int[0, 1000],
        Gen.Byte,
        (kind, position, value) => new Mutation(kind, position, value));

    private static readonly Gen<MutatedCase> Cases = Gen.Select(
        FrameCase.All,
        Mutations.Array[1, 3],
        Gen.Int[0, 9],
        (c, mutations, target) =>
        {
            byte[] data = c.Data;
            byte[]? header = c.Header;
            bool damageHeader = header is not null && target < 5;
            if (header is not null && target == 9)
            {
                header = null; // the header is lost: the bare payload is now read as a prefixed frame
            }
            else if (header is null && target == 8)
            {
                header = c.SchemaIdAndIndexes; // a stray header: the prefixed record is now read as a bare payload
            }

            foreach (Mutation m in mutations)
            {
                if (damageHeader)
                {
                    header = Apply(header!, m);
                }
                else
                {
                    data = Apply(data, m);
                }
            }

            return new MutatedCase(c, data, header, damageHeader);
        });

    [Fact]
    public void DamagedFrames_AreJudgedLikeTheIndependentDecoder() =>
        Cases.Sample(
            m =>
            {
                SerializationContext context = FrameCase.Context(m.Original.Component, m.Header);
                ReferenceFraming.Verdict expected = ReferenceFraming.Decode(m.Data, m.Header, m.Original.Legacy);
                bool ok = m.Original.Reader.TryRead(m.Data, context, out Frame frame, out FrameError error);

                Assert.Equal(expected.Error == FrameErrorCode.None, ok);
                if (ok)
                {
                    Assert.Equal(expected.SchemaId, frame.SchemaId);
                    Assert.Equal(expected.Path, frame.MessageIndexPath.ToArray());
                    Assert.Equal(expected.PayloadOffset, frame.PayloadOffset);
                    Assert.Equal(expected.Placement, frame.SchemaIdPlacement);
                    Assert.Equal(m.Data.Length - expected.PayloadOffset, frame.Payload.Length);
                }
                else
                {
                    Assert.Equal(new FrameError(expected.Error, expected.Offset, expected.Location, expected.SchemaId), error);
                    FrameReader reader = m.Original.Reader;
                    InvalidFrameException thrown = Assert.Throws<InvalidFrameException>(() => reader.Read(m.Data, context));
                    Assert.Equal(error, thrown.Error);
                }
            },
            iter: Iterations);

    [Fact]
    public void DamagedFrames_DeserializeToAMessageOrOurException() =>
        Cases.Sample(
            m =>
            {
                SerializationContext context = FrameCase.Context(m.Original.Component, m.Header);
                var options = new FramedDeserializerOptions { Framing = { MessageIndexEncoding = m.Original.Encoding } };
                AssertMessageOrOurs(() => new FramedProtobufDeserializer<Reading>(options).Deserialize(m.Data, false, context));
                AssertMessageOrOurs(() => new FramedProtobufDeserializer<Device>(options).Deserialize(m.Data, false, context));

                Task<Alert?> task = new FramedProtobufDeserializer<Alert>(options).DeserializeAsync(m.Data, false, context);
                Assert.True(task.IsCompleted);
                if (task.IsFaulted)
                {
                    Assert.IsType<InvalidFrameException>(task.Exception!.InnerException);
                }
            },
            iter: Iterations);

    [Fact]
    public void EveryTruncationOfEveryVector_IsAValidResultOrOurException()
    {
        int rejected = 0;
        foreach (ConfluentVector v in ConfluentVector.ByName.Values.Where(v => v.Payload.Length < 2000))
        {
            TelemetryTypes.ITypeCase type = TelemetryTypes.For(v.Type);
            for (int length = 0; length < v.Data.Length; length++)
            {
                byte[] truncated = v.Data[..length];
                try
                {
                    type.Deserialize(truncated, v.Context());
                }
                catch (InvalidFrameException)
                {
                    rejected++;
                }
            }
        }

        // Prefix truncations inside the id or path must be rejected; payload truncations mostly are.
        Assert.True(rejected > 200, $"only {rejected} truncations were rejected");
    }

    private static void AssertMessageOrOurs(Func<object?> deserialize)
    {
        try
        {
            Assert.NotNull(deserialize());
        }
        catch (InvalidFrameException)
        {
            // the package's one exception for bad data
        }
    }

    private static byte[] Apply(byte[] bytes, Mutation m)
    {
        var list = new List<byte>(bytes);
        int at = list.Count == 0 ? 0 : m.Position % list.Count;
        switch (m.Kind)
        {
            case Damage.FlipBit when list.Count > 0:
                list[at] ^= (byte)(1 << (m.Value % 8));
                break;
            case Damage.SetByte when list.Count > 0:
                list[at] = m.Value;
                break;
            case Damage.InsertByte:
                list.Insert(m.Position % (list.Count + 1), m.Value);
                break;
            case Damage.DeleteByte when list.Count > 0:
                list.RemoveAt(at);
                break;
            case Damage.Truncate:
                list.RemoveRange(m.Position % (list.Count + 1), list.Count - (m.Position % (list.Count + 1)));
                break;
            case Damage.ExtendVarint when list.Count > 0:
                // A continuation bit on a byte that ended a varint makes it swallow the next byte.
                list[at] |= 0x80;
                break;
            case Damage.Append:
                list.Add(m.Value);
                break;
        }

        return list.ToArray();
    }
}
