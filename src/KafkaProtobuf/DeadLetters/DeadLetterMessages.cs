using System;
using System.Globalization;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf.Diagnostics;

namespace KafkaProtobuf.DeadLetters;

/// <summary>
/// The dead letter of a record a consumer could not deserialize, or whose handler failed: the record, byte for byte, with
/// the failure in headers.
/// </summary>
/// <remarks>
/// What a dead letter adds to its record is bounded, whatever the failure: each header value it writes is at most
/// <see cref="MaxHeaderValueBytes"/> (a longer message is cut and ends <c>… [cut: N bytes in all]</c>; a trace header
/// longer than that is left out), so a dead letter is at most its record plus <see cref="MaxAddedBytes"/>. A record
/// that is copied again (a retry topic's copy, dead-lettered after its last tier) adds that much at each copy.
/// </remarks>
public static class DeadLetterMessages
{
    /// <summary>The most bytes (UTF-8) of any header value a dead letter adds: 1,024.</summary>
    public const int MaxHeaderValueBytes = 1024;

    /// <summary>
    /// The most a dead letter (or a retry topic's copy) adds to its record, headers' names, values and framing included:
    /// 16 KiB. Give the dead-letter topic's <c>max.message.bytes</c> and the producer's <c>message.max.bytes</c> that much
    /// room above the largest record, for each time a record may be copied.
    /// </summary>
    public const int MaxAddedBytes = 16 * 1024;

    /// <summary>Trace headers a dead letter carries at most (traceparent, tracestate, baggage and one more).</summary>
    private const int MaxTraceHeaders = 4;

    /// <summary>
    /// The dead-letter message for a record that failed to deserialize: its original key, value and headers, unchanged,
    /// followed by the <see cref="DeadLetterHeaderNames"/> headers.
    /// </summary>
    /// <param name="exception">A deserialization failure (<see cref="ConsumeExceptionExtensions.IsDeserializationFailure"/>).</param>
    /// <returns>The message to produce to the dead-letter topic.</returns>
    /// <exception cref="ArgumentException">The exception is not a deserialization failure.</exception>
    public static Message<byte[], byte[]> ToDeadLetterMessage(this ConsumeException exception)
    {
        if (exception is null)
        {
            throw new ArgumentNullException(nameof(exception));
        }

        if (!exception.IsDeserializationFailure())
        {
            throw new ArgumentException(
                exception.IsSchemaUnavailable()
                    ? "The record's writer's schema could not be obtained; the record is not bad data and must not be dead-lettered: seek back to it and consume it again."
                    : "Only key and value deserialization failures carry the raw record.",
                nameof(exception));
        }

        Exception? cause = exception.InnerException;
        var frameError = cause as InvalidFrameException;
        return Build(
            exception.ConsumerRecord,
            frameError?.ErrorCode.ToString() ?? cause?.GetType().Name ?? exception.Error.Code.ToString(),
            cause?.Message ?? exception.Message,
            exception.Error.Code == ErrorCode.Local_KeyDeserialization ? "key" : "value",
            frameError?.Offset);
    }

    /// <summary>
    /// The dead-letter message for a record the application's handler failed on: its original key, value and headers,
    /// unchanged, followed by the <see cref="DeadLetterHeaderNames"/> headers, the error code being the exception's
    /// type (full name) and the component <c>handler</c>.
    /// </summary>
    /// <param name="record">The record as it was written: raw key, value and headers, topic, partition and offset.</param>
    /// <param name="failure">What the handler threw.</param>
    /// <returns>The message to produce to the dead-letter topic.</returns>
    public static Message<byte[], byte[]> ToDeadLetterMessage(this ConsumeResult<byte[], byte[]> record, Exception failure)
    {
        if (record is null)
        {
            throw new ArgumentNullException(nameof(record));
        }

        if (failure is null)
        {
            throw new ArgumentNullException(nameof(failure));
        }

        return Build(record, failure.GetType().FullName ?? failure.GetType().Name, failure.Message, "handler", null);
    }

    /// <summary>
    /// The dead-letter message for a record the application's handler failed on, where the failure is known only as text
    /// (a framework that records it as its exception type's name and message, e.g. Wolverine's dead-letter metadata): the
    /// record's original key, value and headers, unchanged, followed by the <see cref="DeadLetterHeaderNames"/> headers,
    /// the error code being <paramref name="errorCode"/> and the component <c>handler</c>.
    /// </summary>
    /// <param name="record">The record as it was written: raw key, value and headers, topic, partition and offset.</param>
    /// <param name="errorCode">What failed, e.g. the exception type's full name (cut to <see cref="MaxHeaderValueBytes"/>).</param>
    /// <param name="errorMessage">Why (cut to <see cref="MaxHeaderValueBytes"/>).</param>
    /// <returns>The message to produce to the dead-letter topic.</returns>
    public static Message<byte[], byte[]> ToDeadLetterMessage(this ConsumeResult<byte[], byte[]> record, string errorCode, string errorMessage)
    {
        if (record is null)
        {
            throw new ArgumentNullException(nameof(record));
        }

        if (errorCode is null)
        {
            throw new ArgumentNullException(nameof(errorCode));
        }

        if (errorMessage is null)
        {
            throw new ArgumentNullException(nameof(errorMessage));
        }

        return Build(record, errorCode, errorMessage, "handler", null);
    }

    private static Message<byte[], byte[]> Build(ConsumeResult<byte[], byte[]> record, string code, string message, string component, int? errorOffset)
    {
        var headers = new Headers();
        if (record.Message.Headers is { } original)
        {
            foreach (IHeader header in original)
            {
                headers.Add(header.Key, header.GetValueBytes());
            }
        }

        Add(headers, DeadLetterHeaderNames.ErrorCode, code);
        Add(headers, DeadLetterHeaderNames.ErrorMessage, message);
        Add(headers, DeadLetterHeaderNames.Component, component);
        if (errorOffset is { } at)
        {
            Add(headers, DeadLetterHeaderNames.ErrorOffset, at.ToString(CultureInfo.InvariantCulture));
        }

        Add(headers, DeadLetterHeaderNames.SourceTopic, record.Topic);
        Add(headers, DeadLetterHeaderNames.SourcePartition, record.Partition.Value.ToString(CultureInfo.InvariantCulture));
        Add(headers, DeadLetterHeaderNames.SourceOffset, record.Offset.Value.ToString(CultureInfo.InvariantCulture));

        // The dead letter continues the trace of whoever writes it (the hosted consumer's span for the record), within
        // its budget: the trace state came from the record, and a value too long to carry is left out, not cut.
        var trace = new Headers();
        KafkaTraceContext.Inject(trace);
        int carried = 0;
        foreach (IHeader header in trace)
        {
            byte[] value = header.GetValueBytes();
            if (carried < MaxTraceHeaders && value.Length <= MaxHeaderValueBytes && header.Key.Length <= 64)
            {
                headers.Add(header.Key, value);
                carried++;
            }
        }

        return new Message<byte[], byte[]>
        {
            Key = record.Message.Key,
            Value = record.Message.Value,
            Headers = headers,
            Timestamp = record.Message.Timestamp,
        };
    }

    private static void Add(Headers headers, string name, string value) => headers.Add(name, Bounded(value));

    /// <summary>The UTF-8 bytes of <paramref name="value"/>, at most <see cref="MaxHeaderValueBytes"/>: cut on a character's boundary and marked when longer.</summary>
    internal static byte[] Bounded(string value)
    {
        byte[] bytes = Encoding.UTF8.GetBytes(value);
        if (bytes.Length <= MaxHeaderValueBytes)
        {
            return bytes;
        }

        byte[] marker = Encoding.UTF8.GetBytes(BoundedText.CutMarker + bytes.Length.ToString("N0", CultureInfo.InvariantCulture) + " bytes in all]");
        int keep = MaxHeaderValueBytes - marker.Length;
        while (keep > 0 && (bytes[keep] & 0xC0) == 0x80)
        {
            keep--; // not inside a character's UTF-8 sequence: back to its first byte
        }

        byte[] cut = new byte[keep + marker.Length];
        Buffer.BlockCopy(bytes, 0, cut, 0, keep);
        Buffer.BlockCopy(marker, 0, cut, keep, marker.Length);
        return cut;
    }
}
