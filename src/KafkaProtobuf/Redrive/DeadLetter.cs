using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;

namespace KafkaProtobuf.Redrive;

/// <summary>
/// A dead letter read back: where its record came from, why it failed, how often it was redriven, and the record's own
/// headers. Only the headers this package's writer appended are believed, read from the end of the record's headers: a
/// record may carry <c>kafkaprotobuf.*</c> headers of its own producer's making (anyone allowed to write to a source
/// topic can write them), and those never name its source, its failure or its redrive count.
/// </summary>
/// <remarks>
/// Each dead-lettering, and each hop to a retry topic, appends one block of headers to the record's, starting with
/// <see cref="DeadLetterHeaderNames.ErrorCode"/> and naming the topic the record was read from. The last block is the
/// dead-letter writer's: it says why the record is here. When it names a retry topic (<c>{topic}.retry.{n}</c>), the
/// record came through <c>n</c> hops, and the block <c>n</c> before the last, when it names <c>{topic}</c> and each
/// block between names its tier, says where the record was first read; otherwise the last block does. Dead letters
/// written by 1.0.0 are read by the same rule: it wrote the same blocks.
/// </remarks>
public sealed class DeadLetter
{
    private DeadLetter(ConsumeResult<byte[], byte[]> record, Hop source, Hop last, int redriveCount, Headers originalHeaders)
    {
        Record = record;
        SourceTopic = IsTopicName(source.Topic) ? source.Topic : null;
        SourcePartition = SourceTopic is null ? null : source.Partition;
        SourceOffset = SourceTopic is null ? null : source.Offset;
        ErrorCode = last.ErrorCode;
        ErrorMessage = last.ErrorMessage;
        ErrorOffset = last.ErrorOffset;
        Component = last.Component;
        RedriveCount = redriveCount;
        OriginalHeaders = originalHeaders;
    }

    /// <summary>The dead letter as consumed.</summary>
    public ConsumeResult<byte[], byte[]> Record { get; }

    /// <summary>
    /// The topic its record was first read from, as the dead-letter writer (or its first retry hop) recorded it;
    /// <see langword="null"/> when no writer's block names a topic Kafka could have.
    /// </summary>
    public string? SourceTopic { get; }

    /// <summary>The partition its record was first in, when known.</summary>
    public int? SourcePartition { get; }

    /// <summary>The record's offset in that partition, when known.</summary>
    public long? SourceOffset { get; }

    /// <summary>The last failure's code: a <see cref="FrameErrorCode"/> name or an exception type.</summary>
    public string? ErrorCode { get; }

    /// <summary>The last failure's message (at most <see cref="DeadLetterMessages.MaxHeaderValueBytes"/> bytes as written), or <see langword="null"/>.</summary>
    public string? ErrorMessage { get; }

    /// <summary>The byte offset of the last failure in its key or value (<see cref="InvalidFrameException.Offset"/>), when known.</summary>
    public int? ErrorOffset { get; }

    /// <summary>The last failure's component: <c>key</c>, <c>value</c> or <c>handler</c>.</summary>
    public string? Component { get; }

    /// <summary>How many times its record was redriven before it came here again (0: never).</summary>
    public int RedriveCount { get; }

    /// <summary>
    /// The record's own headers, byte for byte: every header before the blocks this package appended (and before the
    /// <see cref="RedriveHeaderNames"/> of the redrive that wrote it back, which a new redrive replaces).
    /// </summary>
    public Headers OriginalHeaders { get; }

    /// <summary>Reads a dead letter's headers.</summary>
    /// <param name="record">A record of a dead-letter topic.</param>
    /// <returns>The dead letter.</returns>
    public static DeadLetter Read(ConsumeResult<byte[], byte[]> record)
    {
        if (record is null)
        {
            throw new ArgumentNullException(nameof(record));
        }

        Headers headers = record.Message?.Headers ?? new Headers();
        var blocks = new List<int>();
        for (int i = 0; i < headers.Count; i++)
        {
            if (headers[i].Key == DeadLetterHeaderNames.ErrorCode)
            {
                blocks.Add(i);
            }
        }

        Hop last = blocks.Count == 0 ? default : Hop.Read(headers, blocks[blocks.Count - 1], headers.Count);
        int first = blocks.Count == 0 ? headers.Count : FirstHop(headers, blocks, last);
        Hop source = blocks.Count == 0 ? default : Hop.Read(headers, blocks[first], first + 1 < blocks.Count ? blocks[first + 1] : headers.Count);
        int ownEnd = blocks.Count == 0 ? headers.Count : blocks[first];

        // The headers of the redrive that wrote this record back, if one did, stand right before the first block, as it
        // writes them: count, time, run.
        int redriveStart = ownEnd, redriveCount = 0;
        if (ownEnd >= 3 && headers[ownEnd - 3].Key == RedriveHeaderNames.Count && headers[ownEnd - 2].Key == RedriveHeaderNames.Time && headers[ownEnd - 1].Key == RedriveHeaderNames.Run)
        {
            redriveStart = ownEnd - 3;
            redriveCount = int.TryParse(Text(headers[redriveStart]), NumberStyles.None, CultureInfo.InvariantCulture, out int count) ? count : 0;
        }

        var originalHeaders = new Headers();
        for (int i = 0; i < redriveStart; i++)
        {
            originalHeaders.Add(headers[i].Key, headers[i].GetValueBytes());
        }

        return new DeadLetter(record!, source, last, redriveCount, originalHeaders);
    }

    /// <summary>
    /// The index in <paramref name="blocks"/> of the block that says where the record was first read: <c>n</c> before
    /// the last when the last names the retry topic of tier <c>n</c> and the blocks between name the tiers before it,
    /// down to the first topic; the last block otherwise.
    /// </summary>
    private static int FirstHop(Headers headers, List<int> blocks, Hop last)
    {
        int lastIndex = blocks.Count - 1;
        if (RetryTopicName.Parse(last.Topic) is not (string firstTopic, int tier) || tier > lastIndex)
        {
            return lastIndex;
        }

        for (int hop = 0; hop < tier; hop++)
        {
            int block = lastIndex - tier + hop;
            string expected = hop == 0 ? firstTopic : RetryTopicName.Of(firstTopic, hop);
            if (Hop.Read(headers, blocks[block], blocks[block + 1]).Topic != expected)
            {
                return lastIndex;
            }
        }

        return lastIndex - tier;
    }

    /// <summary>
    /// Whether a header names a topic Kafka could have (1 to 249 of <c>[A-Za-z0-9._-]</c>, not <c>.</c> or <c>..</c>): a
    /// forged one is no source, so it is skipped and counted rather than failing the write and stopping every run there.
    /// </summary>
    private static bool IsTopicName(string? topic)
    {
        if (string.IsNullOrEmpty(topic) || topic!.Length > 249 || topic is "." or "..")
        {
            return false;
        }

        foreach (char c in topic)
        {
            if (!(c is (>= 'a' and <= 'z') or (>= 'A' and <= 'Z') or (>= '0' and <= '9') or '.' or '_' or '-'))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>Header text from Kafka: invalid UTF-8 read as replacement characters, never thrown.</summary>
    private static string? Text(IHeader header) => header.GetValueBytes() is { } bytes ? Encoding.UTF8.GetString(bytes) : null;

    /// <summary>One block of headers a dead-lettering or a retry hop appended: the first of each of its headers, from its error code to the next block.</summary>
    private readonly struct Hop
    {
        private Hop(string? topic, int? partition, long? offset, string? errorCode, string? errorMessage, int? errorOffset, string? component)
        {
            ErrorOffset = errorOffset;
            Topic = topic;
            Partition = partition;
            Offset = offset;
            ErrorCode = errorCode;
            ErrorMessage = errorMessage;
            Component = component;
        }

        public string? Topic { get; }

        public int? Partition { get; }

        public long? Offset { get; }

        public string? ErrorCode { get; }

        public string? ErrorMessage { get; }

        public int? ErrorOffset { get; }

        public string? Component { get; }

        public static Hop Read(Headers headers, int start, int end)
        {
            string? topic = null, errorCode = null, errorMessage = null, component = null;
            int? partition = null, errorOffset = null;
            long? offset = null;
            bool seenTopic = false, seenPartition = false, seenOffset = false, seenMessage = false, seenComponent = false, seenErrorOffset = false;
            for (int i = start; i < end; i++)
            {
                IHeader header = headers[i];
                switch (header.Key)
                {
                    case DeadLetterHeaderNames.ErrorCode when i == start:
                        errorCode = Text(header);
                        break;
                    case DeadLetterHeaderNames.ErrorMessage when !seenMessage:
                        (seenMessage, errorMessage) = (true, Text(header));
                        break;
                    case DeadLetterHeaderNames.ErrorOffset when !seenErrorOffset:
                        seenErrorOffset = true;
                        errorOffset = int.TryParse(Text(header), NumberStyles.None, CultureInfo.InvariantCulture, out int at) ? at : null;
                        break;
                    case DeadLetterHeaderNames.Component when !seenComponent:
                        (seenComponent, component) = (true, Text(header));
                        break;
                    case DeadLetterHeaderNames.SourceTopic when !seenTopic:
                        (seenTopic, topic) = (true, Text(header));
                        break;
                    case DeadLetterHeaderNames.SourcePartition when !seenPartition:
                        seenPartition = true;
                        partition = int.TryParse(Text(header), NumberStyles.None, CultureInfo.InvariantCulture, out int p) ? p : null;
                        break;
                    case DeadLetterHeaderNames.SourceOffset when !seenOffset:
                        seenOffset = true;
                        offset = long.TryParse(Text(header), NumberStyles.None, CultureInfo.InvariantCulture, out long o) ? o : null;
                        break;
                }
            }

            return new Hop(topic, partition, offset, errorCode, errorMessage, errorOffset, component);
        }
    }
}
