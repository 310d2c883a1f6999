using System;
using Confluent.Kafka;
using Streamiz.Kafka.Net;

namespace KafkaProtobuf.Streamiz;

/// <summary>What a stream does with a record its serdes could not read.</summary>
public static class ProtobufDeserializationHandler
{
    /// <summary>
    /// For <c>StreamConfig.DeserializationExceptionHandler</c>: skips bad data (<see cref="InvalidFrameException"/>, which
    /// Streamiz logs with the record's place) and fails on anything else, a <see cref="SchemaUnavailableException"/> above
    /// all: the registry is down, the record is fine, and skipping it would lose it. The stream thread stops; restart the
    /// application once the registry is back (Streamiz commits nothing past the record).
    /// </summary>
    /// <param name="context">The processor's context.</param>
    /// <param name="record">The record.</param>
    /// <param name="exception">What the serdes threw.</param>
    /// <returns><see cref="ExceptionHandlerResponse.CONTINUE"/> for bad data, <see cref="ExceptionHandlerResponse.FAIL"/> otherwise.</returns>
    public static ExceptionHandlerResponse ContinueOnBadDataOnly(ProcessorContext context, ConsumeResult<byte[], byte[]> record, Exception exception) =>
        exception is InvalidFrameException ? ExceptionHandlerResponse.CONTINUE : ExceptionHandlerResponse.FAIL;
}
