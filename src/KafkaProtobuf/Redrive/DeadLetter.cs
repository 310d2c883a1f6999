using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;

namespace KafkaProtobuf.Redrive;

/// <summary>
/// A dead letter read back: where its record came from, why it failed, how often it was redriven, and the record's own
/// headers. A record that went through retry topics carries one set of <c>kafkaprotobuf.source.*</c> headers per hop:
/// the first names the topic it was first written to, the last failure's <c>kafkaprotobuf.error.*</c> say why it is here.
/// </summary>
public sealed class DeadLetter
{
    private DeadLetter(ConsumeResult<byte[], byte[]> record, string? sourceTopic, int? sourcePartition, long? sourceOffset, string? errorCode, string? component, int redriveCount, Headers originalHeaders)
    {
        Record = record;
        SourceTopic = sourceTopic;
        SourcePartition = sourcePartition;
        SourceOffset = sourceOffset;
        ErrorCode = errorCode;
        Component = component;
        RedriveCount = redriveCount;
        OriginalHeaders = originalHeaders;
    }

    /// <summary>The dead letter as consumed.</summary>
    public ConsumeResult<byte[], byte[]> Record { get; }

    /// <summary>The topic its record was first written to; <see langword="null"/> when it carries no source header, or one that names no possible topic.</summary>
    public string? SourceTopic { get; }

    /// <summary>The partition its record was first in, when known.</summary>
    public int? SourcePartition { get; }

    /// <summary>The record's offset in that partition, when known.</summary>
    public long? SourceOffset { get; }

    /// <summary>The last failure's code: a <see cref="FrameErrorCode"/> name or an exception type.</summary>
    public string? ErrorCode { get; }

    /// <summary>The last failure's component: <c>key</c>, <c>value</c> or <c>handler</c>.</summary>
    public string? Component { get; }

    /// <summary>How many times its record was redriven before it came here again (0: never).</summary>
    public int RedriveCount { get; }

    /// <summary>The record's own headers: those before the first header this package added, less earlier redrive headers.</summary>
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

        string? sourceTopic = null, errorCode = null, component = null;
        int? sourcePartition = null;
        long? sourceOffset = null;
        int redriveCount = 0;
        bool original = true;
        var originalHeaders = new Headers();
        foreach (IHeader header in (IEnumerable<IHeader>?)record.Message.Headers ?? Array.Empty<IHeader>())
        {
            string name = header.Key;
            bool ours = name.StartsWith(RedriveHeaderNames.PackagePrefix, StringComparison.Ordinal);
            bool redrive = name.StartsWith(RedriveHeaderNames.Prefix, StringComparison.Ordinal);
            original &= !ours || redrive;
            if (original && !ours)
            {
                originalHeaders.Add(name, header.GetValueBytes());
            }

            if (!ours)
            {
                continue;
            }

            string? value = header.GetValueBytes() is { } bytes ? Text(bytes) : null;
            switch (name)
            {
                case DeadLetterHeaderNames.SourceTopic when sourceTopic is null:
                    sourceTopic = value;
                    break;
                case DeadLetterHeaderNames.SourcePartition when sourcePartition is null:
                    sourcePartition = int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out int partition) ? partition : null;
                    break;
                case DeadLetterHeaderNames.SourceOffset when sourceOffset is null:
                    sourceOffset = long.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out long offset) ? offset : null;
                    break;
                case DeadLetterHeaderNames.ErrorCode:
                    errorCode = value;
                    break;
                case DeadLetterHeaderNames.Component:
                    component = value;
                    break;
                case RedriveHeaderNames.Count when original:
                    redriveCount = int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out int count) ? count : redriveCount;
                    break;
            }
        }

        return new DeadLetter(record, IsTopicName(sourceTopic) ? sourceTopic : null, sourcePartition, sourceOffset, errorCode, component, redriveCount, originalHeaders);
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
    private static string Text(byte[] bytes) => Encoding.UTF8.GetString(bytes);
}
