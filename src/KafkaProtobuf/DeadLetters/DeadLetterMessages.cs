using System;
using System.Globalization;
using System.Text;
using Confluent.Kafka;

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

    /// <summary>
    /// The dead-letter message for a record that failed to deserialize: its original key, value and headers, unchanged,
    /// followed by the <see cref="DeadLetterHeaderNames"/> headers (an unsigned block: <see cref="ProvenanceCodec"/>
    /// signs them with keys).
    /// </summary>
    /// <param name="exception">A deserialization failure (<see cref="ConsumeExceptionExtensions.IsDeserializationFailure"/>).</param>
    /// <returns>The message to produce to the dead-letter topic.</returns>
    /// <exception cref="ArgumentException">The exception is not a deserialization failure.</exception>
    public static Message<byte[], byte[]> ToDeadLetterMessage(this ConsumeException exception) =>
        ProvenanceCodec.WithoutKeys.ToDeadLetterMessage(exception);

    /// <summary>
    /// The dead-letter message for a record the application's handler failed on: its original key, value and headers,
    /// unchanged, followed by the <see cref="DeadLetterHeaderNames"/> headers, the error code being the exception's
    /// type (full name) and the component <c>handler</c> (an unsigned block: <see cref="ProvenanceCodec"/> signs them
    /// with keys).
    /// </summary>
    /// <param name="record">The record as it was written: raw key, value and headers, topic, partition and offset.</param>
    /// <param name="failure">What the handler threw.</param>
    /// <returns>The message to produce to the dead-letter topic.</returns>
    public static Message<byte[], byte[]> ToDeadLetterMessage(this ConsumeResult<byte[], byte[]> record, Exception failure) =>
        ProvenanceCodec.WithoutKeys.ToDeadLetterMessage(record, failure);

    /// <summary>
    /// The dead-letter message for a record the application's handler failed on, where the failure is known only as text
    /// (a framework that records it as its exception type's name and message, e.g. Wolverine's dead-letter metadata): the
    /// record's original key, value and headers, unchanged, followed by the <see cref="DeadLetterHeaderNames"/> headers,
    /// the error code being <paramref name="errorCode"/> and the component <c>handler</c> (an unsigned block).
    /// </summary>
    /// <param name="record">The record as it was written: raw key, value and headers, topic, partition and offset.</param>
    /// <param name="errorCode">What failed, e.g. the exception type's full name (cut to <see cref="MaxHeaderValueBytes"/>).</param>
    /// <param name="errorMessage">Why (cut to <see cref="MaxHeaderValueBytes"/>).</param>
    /// <returns>The message to produce to the dead-letter topic.</returns>
    public static Message<byte[], byte[]> ToDeadLetterMessage(this ConsumeResult<byte[], byte[]> record, string errorCode, string errorMessage) =>
        ProvenanceCodec.WithoutKeys.ToDeadLetterMessage(record, errorCode, errorMessage);

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
