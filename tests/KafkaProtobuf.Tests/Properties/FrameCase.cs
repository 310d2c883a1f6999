using System;
using System.Linq;
using Confluent.Kafka;
using CsCheck;
using KafkaProtobuf.Framing;

namespace KafkaProtobuf.Tests.Properties;

/// <summary>A random framed component: what was written, and the bytes it became.</summary>
public sealed record FrameCase(
    SchemaIdentifier SchemaId,
    int[] Path,
    MessageIndexEncoding Encoding,
    SchemaIdPlacement Placement,
    MessageComponentType Component,
    byte[] Payload)
{
    public static readonly Gen<SchemaIdentifier> SchemaIds = Gen.OneOf(
        Gen.Int.Select(SchemaIdentifier.FromId),
        Gen.Guid.Select(SchemaIdentifier.FromGuid));

    // Mostly the small indexes real files have, sometimes anything up to int.MaxValue (5-byte varints).
    public static readonly Gen<int> Indexes = Gen.Frequency((3, (IGen<int>)Gen.Int[0, 20]), (1, Gen.Int[0, int.MaxValue]));

    public static readonly Gen<int[]> Paths = Gen.Int[1, 5].SelectMany(depth => Indexes.Array[depth]);

    public static readonly Gen<FrameCase> All = Gen.Select(
        SchemaIds,
        Paths,
        Gen.Bool,
        Gen.Bool,
        Gen.Bool,
        Gen.Byte.Array[0, 48],
        (id, path, legacy, header, key, payload) => new FrameCase(
            id,
            path,
            legacy ? MessageIndexEncoding.LegacyUnsigned : MessageIndexEncoding.ZigZag,
            header ? SchemaIdPlacement.Header : SchemaIdPlacement.Prefix,
            key ? MessageComponentType.Key : MessageComponentType.Value,
            payload));

    public bool Legacy => Encoding == MessageIndexEncoding.LegacyUnsigned;

    /// <summary>The magic byte, identifier and path, written by the package.</summary>
    public byte[] SchemaIdAndIndexes => FrameWriter.ToSchemaIdAndIndexes(SchemaId, Path, Encoding);

    /// <summary>The record's key or value bytes.</summary>
    public byte[] Data => Placement == SchemaIdPlacement.Prefix ? [.. SchemaIdAndIndexes, .. Payload] : Payload;

    /// <summary>The schema-id header value, or null in prefix placement.</summary>
    public byte[]? Header => Placement == SchemaIdPlacement.Header ? SchemaIdAndIndexes : null;

    public FrameReader Reader => new(new FramingOptions { MessageIndexEncoding = Encoding });

    public static SerializationContext Context(MessageComponentType component, byte[]? header)
    {
        var headers = new Headers();
        if (header is not null)
        {
            headers.Add(SchemaIdHeaderNames.For(component), header);
        }

        return new SerializationContext(component, "properties", headers);
    }

    public override string ToString() =>
        $"{SchemaId} [{string.Join(", ", Path)}] {Encoding} {Placement} {Component} payload={Convert.ToHexString(Payload)}";
}
