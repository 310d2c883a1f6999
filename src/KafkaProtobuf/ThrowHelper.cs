using System;
using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using Confluent.Kafka;
using KafkaProtobuf.Framing;

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

    /// <summary>For faults found once the framing was read: those after the path name it, with what else is known.</summary>
    [DoesNotReturn]
    internal static void ThrowInvalidFrame(in FrameError error, SerializationContext context, in Frame frame, string? detail, Exception? cause) =>
        throw new InvalidFrameException(
            error,
            context.Component,
            context.Topic,
            FrameErrorCodes.IsFoundAfterThePath(error.Code) ? frame.MessageIndexPath.ToArray() : null,
            detail,
            cause);

    [DoesNotReturn]
    internal static void ThrowInvalidFrame(in FrameError error) =>
        throw new InvalidFrameException(error, default, null, null);

    [DoesNotReturn]
    internal static void ThrowArgument(string paramName, string message) =>
        throw new ArgumentException(message, paramName);

    [DoesNotReturn]
    internal static void ThrowArgumentOutOfRange(string paramName, string message) =>
        throw new ArgumentOutOfRangeException(paramName, message);
}
