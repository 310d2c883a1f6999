using System;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;

namespace KafkaProtobuf.Redrive;

/// <summary>
/// A dead letter read back (<see cref="ProvenanceCodec.Read"/>): where its record came from, why it failed, how often it
/// was redriven, the record's own headers, and how far that is believed. Only the blocks this package's writers appended
/// are read, from the end: a record may carry <c>kafkaprotobuf.*</c> headers of its own producer's making (anyone allowed
/// to write to a topic can write them), and those never name its source, its failure or its redrive count.
/// </summary>
/// <remarks>
/// The last block is the dead-letter writer's: it says why the record is here and where its writer read it. When its
/// writer said that was one of the retry tiers its configuration names (<see cref="DeadLetterHeaderNames.SourceTier"/>),
/// the hops before it, each naming the tier it sent the record to, say where the record was first read; a topic's name
/// never makes it a tier. With <see cref="ProvenanceKeys"/>, signed blocks must verify (<see cref="Provenance"/>). Dead
/// letters written before 1.1 (no <see cref="DeadLetterHeaderNames.Block"/>) are read by the rule 1.0.0 read them by.
/// </remarks>
public sealed class DeadLetter
{
    internal DeadLetter(ConsumeResult<byte[], byte[]> record, ProvenanceReading reading, Headers headers)
    {
        Record = record;
        Provenance = reading.Status;
        ProvenanceProblem = reading.Problem;
        if (reading.Believed && reading.Source is { } source)
        {
            SourceTopic = source.Topic;
            SourcePartition = source.Partition;
            SourceOffset = source.Offset;
            RedriveCount = reading.RedriveCount;
        }

        ErrorCode = reading.ErrorCode;
        ErrorMessage = reading.ErrorMessage;
        ErrorOffset = reading.ErrorOffset;
        Component = reading.Component;
        OriginalHeaders = new Headers();
        for (int i = 0; i < reading.OriginalEnd && i < headers.Count; i++)
        {
            OriginalHeaders.Add(headers[i].Key, headers[i].GetValueBytes());
        }
    }

    /// <summary>The dead letter as consumed.</summary>
    public ConsumeResult<byte[], byte[]> Record { get; }

    /// <summary>
    /// The topic its record was first read from, as the dead-letter writer (or its first retry hop) recorded it;
    /// <see langword="null"/> when no believed block names a topic Kafka could have.
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

    /// <summary>How many times its record was redriven before it came here again (0: never, or no believed redrive says so).</summary>
    public int RedriveCount { get; }

    /// <summary>
    /// The record's own headers, byte for byte: every header before the blocks this package appended (and before the
    /// block of the redrive that wrote it back, which a new redrive replaces).
    /// </summary>
    public Headers OriginalHeaders { get; }

    /// <summary>
    /// How far its source and redrive count are believed: <see cref="ProvenanceStatus.Verified"/> with keys,
    /// <see cref="ProvenanceStatus.Unchecked"/> without, <see cref="ProvenanceStatus.Unverified"/> when a block they rest
    /// on is not believed (then there is no source: a redrive skips it), <see cref="ProvenanceStatus.None"/> when this
    /// package wrote no block.
    /// </summary>
    public ProvenanceStatus Provenance { get; }

    /// <summary>Why its provenance is not believed, in words (<see cref="ProvenanceStatus.Unverified"/>); otherwise null.</summary>
    public string? ProvenanceProblem { get; }

    /// <summary>Reads a dead letter's headers without keys (<see cref="ProvenanceCodec.WithoutKeys"/>): signed blocks are read unchecked.</summary>
    /// <param name="record">A record of a dead-letter topic.</param>
    /// <returns>The dead letter.</returns>
    public static DeadLetter Read(ConsumeResult<byte[], byte[]> record) => ProvenanceCodec.WithoutKeys.Read(record);

    /// <summary>
    /// Where its record came from, as every front-end shows it: <c>orders [3] @41</c>; or why that is not known:
    /// <c>none: no block of this package says where it came from</c>, <c>not believed: …</c>.
    /// </summary>
    /// <returns>The text (from Kafka: make it inert to show it).</returns>
    public string DescribeSource() => SourceText.Of(SourceTopic, SourcePartition, SourceOffset, Provenance, ProvenanceProblem);
}
