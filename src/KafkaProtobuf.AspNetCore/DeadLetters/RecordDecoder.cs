using System;
using System.Collections.Concurrent;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Decoding;
using KafkaProtobuf.Framing;

namespace KafkaProtobuf.AspNetCore.DeadLetters;

/// <summary>
/// Decodes a framed key or value to JSON from its writer's schema: the framing read by the library's
/// <see cref="FrameReader"/>, the writer's file asked of the schema source once per schema id (an answer cached, a
/// failure not), the type found by the message-index path in that file, the payload decoded by the tool's decoder.
/// Thread-safe: page requests share it.
/// </summary>
internal sealed class RecordDecoder(ISchemaFileSource? source)
{
    private static readonly TimeSpan SourceTimeout = TimeSpan.FromSeconds(10);

    private readonly ConcurrentDictionary<SchemaIdentifier, Lazy<Task<FileDescriptor?>>> _files = new();
    private readonly ConcurrentDictionary<FileDescriptor, ProtoJsonDecoder> _decoders = new();

    /// <summary>What the bytes hold, or why they could not be read; a schema source that fails throws.</summary>
    /// <exception cref="Exception">The schema source failed or timed out (an outage, not bad data).</exception>
    public async Task<DecodedRecordPart> DecodeAsync(byte[] data, SerializationContext context, CancellationToken cancellationToken)
    {
        SchemaIdentifier schemaId;
        int[] path;
        int payloadOffset, payloadLength;
        if (!FrameReader.Default.TryRead(data, context, out Frame frame, out FrameError error))
        {
            return new DecodedRecordPart(null, null, null, error.ToString());
        }

        schemaId = frame.SchemaId;
        path = frame.MessageIndexPath.ToArray();
        payloadOffset = frame.PayloadOffset;
        payloadLength = frame.Payload.Length;
        if (source is null)
        {
            return new DecodedRecordPart(schemaId.ToString(), null, null, "no schema source is set for the page: the payload is not decoded");
        }

        FileDescriptor? file = await FileOf(schemaId, cancellationToken).ConfigureAwait(false);
        if (file is null)
        {
            return new DecodedRecordPart(schemaId.ToString(), null, null, "schema " + schemaId + " is not known to the schema source");
        }

        MessageDescriptor? type = TypeAt(file, path);
        if (type is null)
        {
            return new DecodedRecordPart(schemaId.ToString(), null, null, "the message-index path names no message of " + file.Name);
        }

        try
        {
            ProtoJsonDecoder decoder = _decoders.GetOrAdd(file, f => new ProtoJsonDecoder([f]));
            string json = decoder.Decode(type, data.AsSpan(payloadOffset, payloadLength), indented: true);
            return new DecodedRecordPart(schemaId.ToString(), type.FullName, json, null);
        }
        catch (PayloadDecodeException e)
        {
            return new DecodedRecordPart(schemaId.ToString(), type.FullName, null, "the payload is not a " + type.FullName + ": " + e.Reason + " at byte " + (payloadOffset + e.Offset));
        }
    }

    private async Task<FileDescriptor?> FileOf(SchemaIdentifier schemaId, CancellationToken cancellationToken)
    {
        Lazy<Task<FileDescriptor?>> asked = _files.GetOrAdd(schemaId, id => new Lazy<Task<FileDescriptor?>>(() => AskAsync(id)));
        try
        {
            return await asked.Value.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (e is not OperationCanceledException || !cancellationToken.IsCancellationRequested)
        {
            _files.TryRemove(new System.Collections.Generic.KeyValuePair<SchemaIdentifier, Lazy<Task<FileDescriptor?>>>(schemaId, asked)); // ask again next time
            throw;
        }
    }

    private async Task<FileDescriptor?> AskAsync(SchemaIdentifier schemaId)
    {
        using var timeout = new CancellationTokenSource(SourceTimeout);
        return await source!.GetSchemaFileAsync(schemaId, timeout.Token).ConfigureAwait(false);
    }

    /// <summary>The message a path names: its first index among the file's messages, the rest among nested ones ([] names the first).</summary>
    private static MessageDescriptor? TypeAt(FileDescriptor file, int[] path)
    {
        if (path.Length == 0)
        {
            return file.MessageTypes.Count > 0 ? file.MessageTypes[0] : null;
        }

        if (path[0] < 0 || path[0] >= file.MessageTypes.Count)
        {
            return null;
        }

        MessageDescriptor type = file.MessageTypes[path[0]];
        for (int i = 1; i < path.Length; i++)
        {
            if (path[i] < 0 || path[i] >= type.NestedTypes.Count)
            {
                return null;
            }

            type = type.NestedTypes[path[i]];
        }

        return type;
    }
}

/// <summary>A framed part: its schema id, the writer's type and the JSON when decoded, or why not.</summary>
internal sealed record DecodedRecordPart(string? SchemaId, string? TypeName, string? Json, string? Problem);
