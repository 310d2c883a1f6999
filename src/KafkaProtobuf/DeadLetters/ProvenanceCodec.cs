using System;
using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf.Diagnostics;
using KafkaProtobuf.Redrive;

namespace KafkaProtobuf.DeadLetters;

/// <summary>
/// Writes the blocks of headers this package appends to a record (a dead letter's, a retry copy's, a redrive's) and
/// reads them back: the one owner of that format, which every writer and reader of the packages goes through (the
/// dead-letter helpers, the hosted consumer's retry tiers, the redrive, the operations page, the tool, the dashboard).
/// Each block records what only its writer knows: where it read the record, and whether that was one of the retry tiers
/// its configuration names (<see cref="RetryTier"/>); where the record's own headers end; and, with
/// <see cref="ProvenanceKeys"/>, an HMAC over the record and every header up to the block. A reader believes a record's
/// headers only as far as those blocks go: a record's own <c>kafkaprotobuf.*</c> headers, which anyone allowed to write
/// its topic could have written, never say where it came from or how often it was redriven. Thread-safe.
/// </summary>
public sealed class ProvenanceCodec
{
    /// <summary>Trace headers a dead letter carries at most (traceparent, tracestate, baggage and one more).</summary>
    private const int MaxTraceHeaders = 4;

    /// <summary>A codec with keys: what it writes is signed with the first, what it reads is verified with all.</summary>
    /// <param name="keys">The keys; null: unsigned, and read without a check.</param>
    public ProvenanceCodec(ProvenanceKeys? keys) => Keys = keys;

    /// <summary>The codec without keys: blocks written unsigned and read without a check (as <see cref="DeadLetterMessages"/> and <see cref="DeadLetter.Read"/> do).</summary>
    public static ProvenanceCodec WithoutKeys { get; } = new(null);

    /// <summary>Its keys, or null.</summary>
    public ProvenanceKeys? Keys { get; }

    /// <summary>
    /// The dead letter of a record that failed to deserialize: its key, value and headers unchanged, then this package's
    /// block (<see cref="DeadLetterHeaderNames"/>), then the current activity's trace headers.
    /// </summary>
    /// <param name="exception">A deserialization failure (<see cref="ConsumeExceptionExtensions.IsDeserializationFailure"/>).</param>
    /// <returns>The message to produce to the dead-letter topic.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="exception"/> is null.</exception>
    /// <exception cref="ArgumentException">The exception is not a deserialization failure.</exception>
    public Message<byte[], byte[]> ToDeadLetterMessage(ConsumeException exception) => ToDeadLetterMessage(exception, null);

    /// <summary>The dead letter of a record that failed to deserialize, read from <paramref name="readFrom"/> (see <see cref="ToDeadLetterMessage(ConsumeException)"/>).</summary>
    /// <param name="exception">A deserialization failure.</param>
    /// <param name="readFrom">The retry tier the record was read from, when its topic is one of the tiers the consumer's configuration names; null otherwise, whatever the topic is called.</param>
    /// <returns>The message to produce to the dead-letter topic.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="exception"/> is null.</exception>
    /// <exception cref="ArgumentException">The exception is not a deserialization failure, or <paramref name="readFrom"/> is not the record's topic.</exception>
    public Message<byte[], byte[]> ToDeadLetterMessage(ConsumeException exception, RetryTier? readFrom)
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
        return Failure(
            exception.ConsumerRecord,
            readFrom,
            frameError?.ErrorCode.ToString() ?? cause?.GetType().Name ?? exception.Error.Code.ToString(),
            cause?.Message ?? exception.Message,
            exception.Error.Code == Confluent.Kafka.ErrorCode.Local_KeyDeserialization ? "key" : "value",
            frameError?.Offset,
            null);
    }

    /// <summary>
    /// The dead letter of a record the application's handler failed on: its key, value and headers unchanged, then this
    /// package's block, the error code being the exception's type (full name) and the component <c>handler</c>.
    /// </summary>
    /// <param name="record">The record as it was written: raw key, value and headers, topic, partition and offset.</param>
    /// <param name="failure">What the handler threw.</param>
    /// <returns>The message to produce to the dead-letter topic.</returns>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    public Message<byte[], byte[]> ToDeadLetterMessage(ConsumeResult<byte[], byte[]> record, Exception failure) => ToDeadLetterMessage(record, failure, null);

    /// <summary>The dead letter of a record the application's handler failed on, read from <paramref name="readFrom"/> (see <see cref="ToDeadLetterMessage(ConsumeResult{byte[], byte[]}, Exception)"/>).</summary>
    /// <param name="record">The record as it was written.</param>
    /// <param name="failure">What the handler threw.</param>
    /// <param name="readFrom">The retry tier the record was read from, when its topic is one of the tiers the consumer's configuration names; null otherwise.</param>
    /// <returns>The message to produce to the dead-letter topic.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="record"/> or <paramref name="failure"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="readFrom"/> is not the record's topic.</exception>
    public Message<byte[], byte[]> ToDeadLetterMessage(ConsumeResult<byte[], byte[]> record, Exception failure, RetryTier? readFrom)
    {
        CheckRecord(record);
        if (failure is null)
        {
            throw new ArgumentNullException(nameof(failure));
        }

        return Failure(record, readFrom, failure.GetType().FullName ?? failure.GetType().Name, failure.Message, "handler", null, null);
    }

    /// <summary>
    /// The dead letter of a record the application's handler failed on, where the failure is known only as text (a
    /// framework that records it as its exception type's name and message): the component <c>handler</c>.
    /// </summary>
    /// <param name="record">The record as it was written.</param>
    /// <param name="errorCode">What failed, e.g. the exception type's full name (cut to <see cref="DeadLetterMessages.MaxHeaderValueBytes"/>).</param>
    /// <param name="errorMessage">Why (cut to <see cref="DeadLetterMessages.MaxHeaderValueBytes"/>).</param>
    /// <returns>The message to produce to the dead-letter topic.</returns>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    public Message<byte[], byte[]> ToDeadLetterMessage(ConsumeResult<byte[], byte[]> record, string errorCode, string errorMessage)
    {
        CheckRecord(record);
        return Failure(
            record,
            null,
            errorCode ?? throw new ArgumentNullException(nameof(errorCode)),
            errorMessage ?? throw new ArgumentNullException(nameof(errorMessage)),
            "handler",
            null,
            null);
    }

    /// <summary>
    /// The copy of a record whose handler failed for good, for retry tier <paramref name="to"/>: its key, value and
    /// headers unchanged (earlier hops included), then this package's block for the failure with the tier it goes to,
    /// when it is due and, on the first hop, when it failed; then the current activity's trace headers.
    /// </summary>
    /// <param name="record">The record as it was read: raw key, value and headers, topic, partition and offset.</param>
    /// <param name="failure">What the handler threw.</param>
    /// <param name="readFrom">The tier the record was read from, when its topic is one of the consumer's tiers; null for any other topic.</param>
    /// <param name="to">The tier it goes to: tier 1 of the record's topic, or the tier after <paramref name="readFrom"/>.</param>
    /// <param name="due">When it is due to be handled again.</param>
    /// <param name="failedAt">When the handler failed (written on the first hop).</param>
    /// <returns>The message to produce to <paramref name="to"/>'s topic (<see cref="RetryTier.Name"/>).</returns>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="to"/> is not the tier after where the record was read, or <paramref name="readFrom"/> is not the record's topic.</exception>
    public Message<byte[], byte[]> ToRetryCopy(ConsumeResult<byte[], byte[]> record, Exception failure, RetryTier? readFrom, RetryTier to, DateTimeOffset due, DateTimeOffset failedAt)
    {
        CheckRecord(record);
        if (failure is null)
        {
            throw new ArgumentNullException(nameof(failure));
        }

        if (to is null)
        {
            throw new ArgumentNullException(nameof(to));
        }

        RetryTier expected = readFrom?.Next() ?? new RetryTier(record.Topic, 1);
        if (!expected.Equals(to))
        {
            throw new ArgumentException("A record read from " + (readFrom?.ToString() ?? record.Topic) + " goes to " + expected + ", not " + to + ".", nameof(to));
        }

        return Failure(record, readFrom, failure.GetType().FullName ?? failure.GetType().Name, failure.Message, "handler", null, (to, due, failedAt));
    }

    /// <summary>
    /// A dead letter read back: where its record was first read, why it failed, how often it was redriven, the record's
    /// own headers, and how far that is believed (<see cref="DeadLetter.Provenance"/>). Hostile headers read as unknown,
    /// never thrown.
    /// </summary>
    /// <param name="record">A record of a dead-letter topic.</param>
    /// <returns>The dead letter.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="record"/> is null.</exception>
    public DeadLetter Read(ConsumeResult<byte[], byte[]> record)
    {
        if (record is null)
        {
            throw new ArgumentNullException(nameof(record));
        }

        Headers headers = record.Message?.Headers ?? [];
        ProvenanceReading reading = ProvenanceReader.ReadDeadLetter(headers, record.Message?.Key, record.Message?.Value, Keys);
        return new DeadLetter(record, reading, headers);
    }

    /// <summary>
    /// Where a record a consumer read from one of its retry tiers was first read, and when the hop that wrote it there
    /// said it is due, as a dead letter of it would say (signed hops verified, unsigned ones refused when this codec
    /// signs): false for a record written to the tier by anyone else, or whose hops are not believed; its handler then
    /// sees it where it is.
    /// </summary>
    /// <param name="record">The record, as read from the tier.</param>
    /// <param name="readFrom">The tier, as the consumer's configuration names it.</param>
    /// <param name="origin">Where the record was first read.</param>
    /// <param name="due">When it is due, if its hop said.</param>
    /// <returns>Whether the record is a believed copy.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="record"/> or <paramref name="readFrom"/> is null.</exception>
    public bool TryReadRetryCopy(ConsumeResult<byte[], byte[]> record, RetryTier readFrom, [NotNullWhen(true)] out TopicPartitionOffset? origin, out DateTimeOffset? due)
    {
        if (record is null)
        {
            throw new ArgumentNullException(nameof(record));
        }

        if (readFrom is null)
        {
            throw new ArgumentNullException(nameof(readFrom));
        }

        ProvenanceReading reading = ReadFromTier(record, readFrom);
        if (reading.Status is not (ProvenanceStatus.Unchecked or ProvenanceStatus.Verified) || reading.Source is not { Partition: int partition, Offset: long offset } source)
        {
            (origin, due) = (null, null);
            return false;
        }

        origin = new TopicPartitionOffset(source.Topic, partition, offset);
        due = reading.Due is long at && at >= -62135596800000L && at <= 253402300799999L ? DateTimeOffset.FromUnixTimeMilliseconds(at) : null;
        return true;
    }

    /// <summary>A dead letter's record as a redrive writes it back: its key, value and own headers, then a redrive's block.</summary>
    internal Message<byte[], byte[]> ToRedriven(DeadLetter deadLetter, string runId, DateTimeOffset at)
    {
        var headers = new Headers();
        foreach (IHeader header in deadLetter.OriginalHeaders)
        {
            headers.Add(header.Key, header.GetValueBytes());
        }

        Message<byte[], byte[]> record = deadLetter.Record.Message;
        int start = headers.Count;
        headers.Add(RedriveHeaderNames.Count, Utf8((deadLetter.RedriveCount + 1).ToString(CultureInfo.InvariantCulture)));
        headers.Add(RedriveHeaderNames.Time, Utf8(at.UtcDateTime.ToString("yyyy-MM-ddTHH:mm:ss.fffZ", CultureInfo.InvariantCulture)));
        headers.Add(RedriveHeaderNames.Run, DeadLetterMessages.Bounded(runId));
        AppendTrailer(headers, start, start, record.Key, record.Value);
        return new Message<byte[], byte[]> { Key = record.Key, Value = record.Value, Headers = headers };
    }

    private ProvenanceReading ReadFromTier(ConsumeResult<byte[], byte[]> record, RetryTier tier) =>
        ProvenanceReader.ReadFromTier(record.Message?.Headers ?? [], record.Message?.Key, record.Message?.Value, Keys, tier, signerAppends: true);

    private static void CheckRecord(ConsumeResult<byte[], byte[]> record)
    {
        if (record is null)
        {
            throw new ArgumentNullException(nameof(record));
        }

        if (record.Message is null)
        {
            throw new ArgumentException("The record has no message.", nameof(record));
        }
    }

    /// <summary>A failure's block after the record's headers (a hop's when <paramref name="hop"/> is given), then the trace headers.</summary>
    private Message<byte[], byte[]> Failure(
        ConsumeResult<byte[], byte[]> record, RetryTier? readFrom, string code, string message, string component, int? errorOffset, (RetryTier To, DateTimeOffset Due, DateTimeOffset FailedAt)? hop)
    {
        if (readFrom is not null && readFrom.Name != record.Topic)
        {
            throw new ArgumentException("The record was read from '" + record.Topic + "', not from " + readFrom + ".", nameof(readFrom));
        }

        var headers = new Headers();
        if (record.Message.Headers is { } original)
        {
            foreach (IHeader header in original)
            {
                headers.Add(header.Key, header.GetValueBytes());
            }
        }

        // Where the record's own headers end: all of them, unless it was read from a tier and the hops before it are believed.
        int own = headers.Count;
        if (readFrom is not null && ReadFromTier(record, readFrom) is { Believed: true } reading)
        {
            own = reading.Own;
        }

        int start = headers.Count;
        headers.Add(DeadLetterHeaderNames.ErrorCode, DeadLetterMessages.Bounded(code));
        headers.Add(DeadLetterHeaderNames.ErrorMessage, DeadLetterMessages.Bounded(message));
        headers.Add(DeadLetterHeaderNames.Component, Utf8(component));
        if (errorOffset is { } at)
        {
            headers.Add(DeadLetterHeaderNames.ErrorOffset, Utf8(at.ToString(CultureInfo.InvariantCulture)));
        }

        headers.Add(DeadLetterHeaderNames.SourceTopic, Utf8(record.Topic));
        headers.Add(DeadLetterHeaderNames.SourcePartition, Utf8(record.Partition.Value.ToString(CultureInfo.InvariantCulture)));
        headers.Add(DeadLetterHeaderNames.SourceOffset, Utf8(record.Offset.Value.ToString(CultureInfo.InvariantCulture)));
        if (readFrom is not null)
        {
            headers.Add(DeadLetterHeaderNames.SourceTier, Utf8(readFrom.Tier.ToString(CultureInfo.InvariantCulture)));
            headers.Add(DeadLetterHeaderNames.SourceFirstTopic, Utf8(readFrom.Topic));
        }

        if (hop is { } copy)
        {
            headers.Add(DeadLetterHeaderNames.HopTier, Utf8(copy.To.Tier.ToString(CultureInfo.InvariantCulture)));
            headers.Add(DeadLetterHeaderNames.HopDue, Utf8(copy.Due.ToUnixTimeMilliseconds().ToString(CultureInfo.InvariantCulture)));
            if (copy.To.Tier == 1)
            {
                headers.Add(DeadLetterHeaderNames.HopFirstFailure, Utf8(copy.FailedAt.ToUnixTimeMilliseconds().ToString(CultureInfo.InvariantCulture)));
            }
        }

        AppendTrailer(headers, start, own, record.Message.Key, record.Message.Value);
        AppendTrace(headers);
        return new Message<byte[], byte[]>
        {
            Key = record.Message.Key,
            Value = record.Message.Value,
            Headers = headers,
            Timestamp = record.Message.Timestamp,
        };
    }

    /// <summary>The block's last header: where it starts, where the record's own headers end, and its signature when there are keys.</summary>
    private void AppendTrailer(Headers headers, int start, int own, byte[]? key, byte[]? value)
    {
        string prefix = BlockTrailer.PrefixOf(start, own);
        byte[]? signature = Keys is null ? null : BlockSignature.Sign(Keys.Signing, key, value, headers, headers.Count, prefix);
        headers.Add(DeadLetterHeaderNames.Block, Utf8(BlockTrailer.Text(prefix, signature)));
    }

    /// <summary>
    /// The dead letter continues the trace of whoever writes it (the hosted consumer's span for the record), within its
    /// budget: the trace state came from the record, and a value too long to carry is left out, not cut.
    /// </summary>
    private static void AppendTrace(Headers headers)
    {
        var trace = new Headers();
        KafkaTraceContext.Inject(trace);
        int carried = 0;
        foreach (IHeader header in trace)
        {
            byte[] value = header.GetValueBytes();
            if (carried < MaxTraceHeaders && value.Length <= DeadLetterMessages.MaxHeaderValueBytes && header.Key.Length <= 64
                && !header.Key.StartsWith("kafkaprotobuf.", StringComparison.Ordinal))
            {
                headers.Add(header.Key, value);
                carried++;
            }
        }
    }

    private static byte[] Utf8(string text) => Encoding.UTF8.GetBytes(text);
}
