using System;
using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using Confluent.Kafka;

namespace KafkaProtobuf;

/// <summary>Throw sites kept out of hot methods, so those stay small enough to inline.</summary>
#if NET
[StackTraceHidden]
#endif
internal static class ThrowHelper
{
    [DoesNotReturn]
    internal static void ThrowInvalidFrame(in FrameError error, SerializationContext context) =>
        throw new InvalidFrameException(error, context.Component, context.Topic, null);

    [DoesNotReturn]
    internal static void ThrowInvalidFrame(in FrameError error) =>
        throw new InvalidFrameException(error, default, null, null);

    /// <summary>The payload always lives in the record's data, whichever placement carried the schema id.</summary>
    internal static InvalidFrameException InvalidPayload(
        int payloadOffset, SchemaIdentifier schemaId, SerializationContext context, Exception inner) =>
        new(new FrameError(FrameErrorCode.InvalidPayload, payloadOffset, FrameErrorLocation.RecordData, schemaId), context.Component, context.Topic, inner);

    [DoesNotReturn]
    internal static void ThrowArgumentOutOfRange(string paramName, string message) =>
        throw new ArgumentOutOfRangeException(paramName, message);
}
