using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Decoding;

namespace KafkaProtobuf.Tool.Schemas;

/// <summary>A key or value as the tool shows it: the library's decoding, and the tool's hint about the message-index order, in its options' words.</summary>
internal sealed record ShownPart(DecodedPart Part, string? Hint);

/// <summary>
/// The tool's decoding: the library's <see cref="WriterSchemaDecoder"/> (framing, the writer's schema by id and path,
/// JSON) over the schema source the options name, and what the tool adds: a hint when a path read in the other order
/// names the type, worded with its own options.
/// </summary>
internal sealed class RecordParts(WriterSchemaDecoder decoder, IDisposable? owner, MessageIndexOrder order) : IDisposable
{
    public bool HasSchemas => decoder.DecodesPayloads;

    /// <summary>Decodes one part; with <paramref name="expectedType"/>, a part whose path names another type is bad.</summary>
    /// <exception cref="OperationCanceledException">Ctrl+C while the schema source was asked.</exception>
    /// <exception cref="SchemaUnavailableException">The schema source failed (an outage, not an answer about the schema): the tool stops with exit code 3.</exception>
    public async Task<ShownPart> DecodeAsync(byte[] data, SerializationContext context, string? expectedType, CancellationToken cancellationToken)
    {
        DecodedPart part = await decoder.DecodeAsync(data, context, expectedType, cancellationToken).ConfigureAwait(false);
        return new ShownPart(part, Hint(part, expectedType));
    }

    public void Dispose() => owner?.Dispose();

    /// <summary>A path as the tool shows it: <c>[1, 0, 2]</c>, its first 16 indexes at most.</summary>
    public static string PathText(IReadOnlyList<int> path) =>
        "[" + string.Join(", ", path.Take(16).Select(i => i.ToString(CultureInfo.InvariantCulture))) + (path.Count > 16 ? ", … " + path.Count.ToString("N0", CultureInfo.InvariantCulture) + " indexes in all" : string.Empty) + "]";

    /// <summary>
    /// For a bad part whose path, read in the other order, names a type that fits (the type asked for, or one the payload
    /// decodes as): it may come from Confluent's .NET serializer 2.10.1 to 2.11.0, which wrote nested types' paths
    /// innermost first.
    /// </summary>
    private string? Hint(DecodedPart part, string? expectedType)
    {
        if (!part.IsBad || part.OtherOrderType is not { } other
            || (part.Error!.Value.Code == FrameErrorCode.UnexpectedMessageType && other.FullName != expectedType))
        {
            return null;
        }

        string otherPath = PathText(part.MessageIndexPath.Reverse().ToList());
        return order == MessageIndexOrder.InnermostFirst
            ? $"read root first, as the format has it, the path is {otherPath}, which names {other.FullName}: this record was not written by Confluent's .NET serializer 2.10.1 to 2.11.0; read it without --message-index-order innermost-first"
            : $"read innermost first, the path is {otherPath}, which names {other.FullName}: the record may come from Confluent's .NET serializer 2.10.1 to 2.11.0, which wrote nested types' paths innermost first; read it with --message-index-order innermost-first";
    }
}
