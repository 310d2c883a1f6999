using System;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Resolution;

namespace KafkaProtobuf.Decoding;

/// <summary>
/// Decodes framed keys and values to proto3 JSON from their writer's schema alone, no generated class needed: for
/// tools, operations pages and dead-letter views. The framing is read as the deserializers read it
/// (<see cref="FrameReader"/>), the writer's file is found by schema identifier through the deserializers' cache and
/// rules (a path naming a map's entry type names no record type; an unknown identifier is bad data; a source that fails
/// is a failing dependency, never bad data), and the payload is walked under Google.Protobuf's nesting limit. Bad
/// bytes are answered, never thrown. Thread-safe.
/// </summary>
public sealed class WriterSchemaDecoder
{
    private readonly FrameReader _reader;
    private readonly WriterSchemaResolver? _schemas;
    private readonly TimeSpan _schemaTimeout;
    private readonly bool _indented;
    private readonly bool _eitherOrder;

    // One JSON decoder per file object (two versions of one .proto under different ids are different files).
    private readonly ConditionalWeakTable<FileDescriptor, ProtoJsonDecoder> _decoders = new();

    /// <summary>Creates a decoder of framing only, with the default options: payloads are not decoded (no schema source).</summary>
    public WriterSchemaDecoder()
        : this(new WriterSchemaDecoderOptions())
    {
    }

    /// <summary>Creates a decoder with the default options over one schema source.</summary>
    /// <param name="source">
    /// Where writers' files come from: a <c>RegistryClient</c> of KafkaProtobuf.SchemaRegistry, a
    /// <see cref="SingleFileSchemaSource"/>, any <see cref="ISchemaFileSource"/>.
    /// </param>
    /// <exception cref="ArgumentNullException"><paramref name="source"/> is null (framing only: the constructor without one).</exception>
    public WriterSchemaDecoder(ISchemaFileSource source)
        : this(new WriterSchemaDecoderOptions { WriterSchemas = { Source = source ?? throw new ArgumentNullException(nameof(source)) } })
    {
    }

    /// <summary>Creates a decoder.</summary>
    /// <param name="options">
    /// Framing, writer's schemas (their source, files known in advance, cache), timeout and JSON layout, as the
    /// deserializers name them. Copied.
    /// </param>
    /// <exception cref="ArgumentNullException"><paramref name="options"/> is null.</exception>
    /// <exception cref="ArgumentException">An option is out of range (the message says which).</exception>
    public WriterSchemaDecoder(WriterSchemaDecoderOptions options)
    {
        if (options is null)
        {
            throw new ArgumentNullException(nameof(options));
        }

        WriterSchemaOptions writers = options.WriterSchemas;
        new OptionProblems(nameof(WriterSchemaDecoderOptions))
            .Require(writers.CacheCapacity >= 1, nameof(options.WriterSchemas) + "." + nameof(writers.CacheCapacity), writers.CacheCapacity, "at least 1")
            .Require(options.SchemaTimeout > TimeSpan.Zero || options.SchemaTimeout == Timeout.InfiniteTimeSpan, nameof(options.SchemaTimeout), options.SchemaTimeout, "more than zero, or Timeout.InfiniteTimeSpan")
            .ThrowIfAny(nameof(options));
        _reader = new FrameReader(options.Framing, allowEitherOrder: true);
        _eitherOrder = options.Framing.MessageIndexOrder == MessageIndexOrder.EitherByWriterSchema;
        _schemaTimeout = options.SchemaTimeout;
        _indented = options.Indented;
        if (writers.KnowsWriterFiles)
        {
            // The resolver takes what it needs of the options now (a later change to them is not seen). With no reader
            // types, VerifyCompatibility has nothing to compare.
            _schemas = new WriterSchemaResolver(Array.Empty<MessageDescriptor>(), writers);
        }
    }

    /// <summary>Whether payloads are decoded: a schema source or files known in advance were given (otherwise framing only).</summary>
    public bool DecodesPayloads => _schemas is not null;

    /// <summary>Decodes a framed key or value.</summary>
    /// <param name="data">The key's or value's bytes.</param>
    /// <param name="context">Which part, its topic and its record's headers (where a schema identifier may be).</param>
    /// <returns>The part: framing, writer's type and JSON, or what was wrong.</returns>
    /// <exception cref="SchemaUnavailableException">The schema source failed or did not answer in time: not the record's fault; ask again later.</exception>
    public Task<DecodedPart> DecodeAsync(ReadOnlyMemory<byte> data, SerializationContext context) =>
        DecodeAsync(data, context, null, CancellationToken.None);

    /// <summary>Decodes a framed key or value.</summary>
    /// <param name="data">The key's or value's bytes.</param>
    /// <param name="context">Which part, its topic and its record's headers (where a schema identifier may be).</param>
    /// <param name="cancellationToken">Stops waiting for the schema source.</param>
    /// <returns>The part: framing, writer's type and JSON, or what was wrong.</returns>
    /// <exception cref="SchemaUnavailableException">The schema source failed or did not answer in time: not the record's fault; ask again later.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled while the source was asked.</exception>
    public Task<DecodedPart> DecodeAsync(ReadOnlyMemory<byte> data, SerializationContext context, CancellationToken cancellationToken) =>
        DecodeAsync(data, context, null, cancellationToken);

    /// <summary>Decodes a framed key or value that should be of one message type.</summary>
    /// <param name="data">The key's or value's bytes.</param>
    /// <param name="context">Which part, its topic and its record's headers (where a schema identifier may be).</param>
    /// <param name="expectedType">
    /// The full name of the message type the part should be: a part whose path names another type is
    /// <see cref="FrameErrorCode.UnexpectedMessageType"/>; <see langword="null"/>: any type.
    /// </param>
    /// <param name="cancellationToken">Stops waiting for the schema source.</param>
    /// <returns>The part: framing, writer's type and JSON, or what was wrong.</returns>
    /// <exception cref="SchemaUnavailableException">The schema source failed or did not answer in time: not the record's fault; ask again later.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled while the source was asked.</exception>
    public async Task<DecodedPart> DecodeAsync(ReadOnlyMemory<byte> data, SerializationContext context, string? expectedType, CancellationToken cancellationToken)
    {
        if (!_reader.TryRead(data.Span, context, out Frame frame, out FrameError error))
        {
            return new DecodedPart(error, error.ToString(), error.SchemaId, null, null, 0, 0, null, null, null);
        }

        // What the frame says, kept: a frame is a view of the bytes and cannot live across an await.
        SchemaIdentifier schemaId = frame.SchemaId;
        SchemaIdPlacement placement = frame.SchemaIdPlacement;
        int[] path = frame.MessageIndexPath.ToArray();
        int payloadOffset = frame.PayloadOffset, payloadLength = frame.Payload.Length;
        int pathOffset = frame.MessageIndexPathOffset;
        FrameErrorLocation schemaIdLocation = frame.SchemaIdLocation;
        DecodedPart Part(FrameErrorCode code, int offset, FrameErrorLocation location, string? message, MessageDescriptor? type = null, string? json = null, MessageDescriptor? other = null) =>
            new(code == FrameErrorCode.None ? null : new FrameError(code, offset, location, schemaId), message, schemaId, placement, path, payloadOffset, payloadLength, type, json, other);

        if (_schemas is null)
        {
            return Part(FrameErrorCode.None, 0, default, null);
        }

        MessageTypeTable? table;
        try
        {
            table = await FindAsync(schemaId, context, cancellationToken).ConfigureAwait(false);
        }
        catch (UnusableSchemaException e)
        {
            return Part(FrameErrorCode.UnusableWriterSchema, pathOffset, schemaIdLocation, "schema " + schemaId + " cannot be used: " + e.Reason);
        }

        if (table is null)
        {
            return Part(FrameErrorCode.UnknownSchemaId, pathOffset, schemaIdLocation, "schema " + schemaId + " is not known to the schema source");
        }

        (MessageTypeTable.Node? node, MessageTypeTable.Node? other, bool ambiguous) = TypeAt(table, data, context);
        string shownPath = MessageIndexPath.Format(path, path.Length);
        if (ambiguous)
        {
            return Part(
                FrameErrorCode.AmbiguousMessageIndexOrder, pathOffset, schemaIdLocation,
                "message-index path " + shownPath + " names " + node!.Writer.FullName + " read top level first and " + other!.Writer.FullName + " read innermost first");
        }

        if (node is null)
        {
            return Part(FrameErrorCode.UnknownMessageType, pathOffset, schemaIdLocation, "message-index path " + shownPath + " names no message of " + table.File.Name, other: other?.Writer);
        }

        MessageDescriptor type = node.Writer;
        if (expectedType is not null && type.FullName != expectedType)
        {
            return Part(FrameErrorCode.UnexpectedMessageType, pathOffset, schemaIdLocation, "message-index path " + shownPath + " names " + type.FullName + ", not " + expectedType, type, other: other?.Writer);
        }

        ProtoJsonDecoder decoder = _decoders.GetValue(table.File, static file => new ProtoJsonDecoder([file]));
        ReadOnlySpan<byte> payload = data.Span.Slice(payloadOffset, payloadLength);
        try
        {
            return Part(FrameErrorCode.None, 0, default, null, type, decoder.DecodeInert(type, payload, _indented), other?.Writer);
        }
        catch (PayloadDecodeException e)
        {
            // A path read in the wrong order often names a type the payload is not: name the other order's type if it fits.
            MessageDescriptor? fits = other is not null && decoder.Decodes(other.Writer, payload) ? other.Writer : null;
            return Part(
                FrameErrorCode.InvalidPayload, payloadOffset + e.Offset, FrameErrorLocation.RecordData,
                "the payload is not a " + type.FullName + ": " + e.Reason + " at byte " + (payloadOffset + e.Offset).ToString(System.Globalization.CultureInfo.InvariantCulture),
                type,
                other: fits);
        }
    }

    /// <summary>
    /// The writer's file of an identifier, through the deserializers' cache; the source's failure, or its silence past
    /// the timeout (even a source that does not watch its token), as <see cref="SchemaUnavailableException"/>.
    /// </summary>
    private async Task<MessageTypeTable?> FindAsync(SchemaIdentifier schemaId, SerializationContext context, CancellationToken cancellationToken)
    {
        using var timeout = _schemaTimeout == Timeout.InfiniteTimeSpan ? null : CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout?.CancelAfter(_schemaTimeout);
        Task<MessageTypeTable?> asked;
        try
        {
            asked = _schemas!.FindAsync(schemaId, timeout?.Token ?? cancellationToken);
            if (timeout is not null && !asked.IsCompleted)
            {
                var silence = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
                using (timeout.Token.Register(() => silence.TrySetResult(true)))
                {
                    if (await Task.WhenAny(asked, silence.Task).ConfigureAwait(false) != asked)
                    {
                        _ = asked.ContinueWith(static t => _ = t.Exception, CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
                        cancellationToken.ThrowIfCancellationRequested();
                        throw new TimeoutException("The schema source did not answer within " + _schemaTimeout + ".");
                    }
                }
            }

            return await asked.ConfigureAwait(false);
        }
        catch (UnusableSchemaException)
        {
            throw; // an answer about the identifier: its records are bad data
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            throw;
        }
        catch (Exception e)
        {
            throw new SchemaUnavailableException(schemaId, context.Component, context.Topic, e);
        }
    }

    /// <summary>
    /// The type the path names in the writer's file (read again: the frame could not outlive the await), the one it
    /// names read in the other order when that differs, and whether the options leave the two ambiguous.
    /// </summary>
    private (MessageTypeTable.Node? Node, MessageTypeTable.Node? Other, bool Ambiguous) TypeAt(MessageTypeTable table, ReadOnlyMemory<byte> data, SerializationContext context)
    {
        _reader.TryRead(data.Span, context, out Frame frame, out _);
        if (_eitherOrder)
        {
            MessageTypeTable.Node? either = table.FindEitherOrder(frame.MessageIndexPath, out MessageTypeTable.Node? otherReading);
            return (either, otherReading, otherReading is not null);
        }

        MessageTypeTable.Node? node = table.Find(frame.MessageIndexPath);
        return (node, table.FindInOtherOrder(frame.MessageIndexPath, node), false);
    }
}
