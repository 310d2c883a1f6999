using System;
using Confluent.Kafka;

namespace KafkaProtobuf.DeadLetters;

/// <summary>
/// Reads a record's blocks back from the end, the one reading every reader of the packages goes through: a dead letter
/// (its last block, then the hops its writer said it read the record through) and a record a consumer reads from one of
/// its retry tiers (the hops before it), so that what a handler is shown and what a redrive writes agree.
/// </summary>
/// <remarks>
/// A block that says its writer read the record from tier <c>n</c> of a topic rests on the hop before it: the block
/// whose trailer is the last before it, which must say it sent the record to tier <c>n</c> and was itself read from tier
/// <c>n - 1</c> (from the topic itself for tier 1), with the same end of the record's own headers. The first hop names
/// where the record was first read. Nothing is inferred from a topic's name. With keys, a block that is signed must
/// verify, and once the last block is signed (or the reader is a writer that signs) every block it rests on must be
/// signed too: an unsigned block then is what anyone allowed to write the topic could have written.
/// </remarks>
internal static class ProvenanceReader
{
    private const string PackagePrefix = "kafkaprotobuf.";

    /// <summary>A dead letter's blocks.</summary>
    public static ProvenanceReading ReadDeadLetter(Headers headers, byte[]? key, byte[]? value, ProvenanceKeys? keys)
    {
        int end = headers.Count;
        int trailer = LastPackageHeader(headers, end);
        if (trailer < 0)
        {
            return new ProvenanceReading { Status = ProvenanceStatus.None, OriginalEnd = end, Own = end };
        }

        if (headers[trailer].Key != DeadLetterHeaderNames.Block)
        {
            return ReadLegacyDeadLetter(headers, keys);
        }

        ProvenanceBlock? last = ProvenanceBlock.Parse(headers, trailer);
        if (last is null || last.IsRedrive)
        {
            return Unverified(last is null ? "its last block is malformed" : "its last block is a redrive's, not a dead letter's", end);
        }

        bool signedContext = keys is not null && last.Trailer.Signature is not null;
        if (TrustProblem(last, "its dead-letter block", headers, key, value, keys, signedContext) is { } problem)
        {
            return Unverified(problem, last.Start);
        }

        ProvenanceReading reading = Walk(headers, key, value, keys, signedContext, last, last.ReadFrom, last.Start, last.Own);

        // The writer's own block is believed: its failure is shown even where the record's origin is not.
        reading.ErrorCode = last.ErrorCode;
        reading.ErrorMessage = last.ErrorMessage;
        reading.ErrorOffset = last.ErrorOffset;
        reading.Component = last.Component;
        if (!reading.Believed)
        {
            reading.OriginalEnd = reading.Own = last.Start;
        }

        return reading;
    }

    /// <summary>
    /// A record read from <paramref name="tier"/>: the hops before it, as a block its reader appended now would rest on
    /// them (<paramref name="signerAppends"/>: the reader signs what it writes, so every hop must be signed).
    /// </summary>
    public static ProvenanceReading ReadFromTier(Headers headers, byte[]? key, byte[]? value, ProvenanceKeys? keys, RetryTier tier, bool signerAppends) =>
        Walk(headers, key, value, keys, keys is not null && signerAppends, null, tier, headers.Count, null);

    /// <summary>
    /// From a block (or, for a record read from a tier, the end of its headers) back through the hops it rests on, to
    /// where the record was first read; then the redrive that wrote it back, if one did.
    /// </summary>
    private static ProvenanceReading Walk(
        Headers headers, byte[]? key, byte[]? value, ProvenanceKeys? keys, bool signedContext, ProvenanceBlock? last, RetryTier? tier, int cursor, int? own)
    {
        (string Topic, int? Partition, long? Offset)? source = last is null ? null : (last.SourceTopic, last.SourcePartition, last.SourceOffset);
        ProvenanceBlock? deepest = last;
        bool anyHop = false;
        long? due = null;
        while (tier is not null)
        {
            int before = LastPackageHeader(headers, cursor);
            if (before < 0 || headers[before].Key != DeadLetterHeaderNames.Block)
            {
                if (before >= 0 && LegacyBlocks.ChainBefore(headers, cursor, tier) is { } legacy)
                {
                    // Hops written before 1.1 (a copy in flight across an upgrade): unsigned.
                    if (signedContext)
                    {
                        return Unverified("the retry hops that wrote it to " + tier.Name + " were written without signatures (by KafkaProtobuf before 1.1)", cursor);
                    }

                    if (own is int expected && expected != legacy.RootStart)
                    {
                        return Unverified(Mismatch(tier, "another end of the record's own headers"), cursor);
                    }

                    source = (legacy.Root.Topic!, legacy.Root.Partition, legacy.Root.Offset);
                    due ??= legacy.Due;
                    own = legacy.RootStart;
                    anyHop = true;
                    deepest = null;
                }

                break; // no hop before: the record was written to the tier by someone else, and is its own origin there
            }

            ProvenanceBlock? hop = ProvenanceBlock.Parse(headers, before);
            if (hop is null)
            {
                return Unverified("the block before it on " + tier.Name + " is malformed", cursor);
            }

            if (TrustProblem(hop, "the retry hop that wrote it to " + tier.Name, headers, key, value, keys, signedContext) is { } problem)
            {
                return Unverified(problem, cursor);
            }

            string? mismatch = hop.IsRedrive || hop.SentToTier != tier.Tier ? "it did not send the record to tier " + tier.Tier
                : tier.Tier == 1 && (hop.ReadFrom is not null || hop.SourceTopic != tier.Topic) ? "it did not read the record from " + tier.Topic
                : tier.Tier > 1 && !new RetryTier(tier.Topic, tier.Tier - 1).Equals(hop.ReadFrom) ? "it did not read the record from " + RetryTopicName.Of(tier.Topic, tier.Tier - 1)
                : own is int expectedOwn && hop.Own != expectedOwn ? "it ends the record's own headers elsewhere"
                : null;
            if (mismatch is not null)
            {
                return Unverified(Mismatch(tier, mismatch), cursor);
            }

            due ??= hop.Due;
            source = (hop.SourceTopic, hop.SourcePartition, hop.SourceOffset);
            own = hop.Own;
            cursor = hop.Start;
            tier = hop.ReadFrom;
            deepest = hop;
            anyHop = true;
        }

        if (deepest is not null && deepest.Own != deepest.Start)
        {
            // The first block says the record's own headers end before it, but no hop stands there to say so.
            return Unverified("a block ends the record's own headers where no retry hop is", cursor);
        }

        int ownEnd = own ?? cursor;
        if (keys is { RequireSignatures: true } && !signedContext)
        {
            return Unverified("its blocks are not signed, and signatures are required", last?.Start ?? headers.Count);
        }

        var reading = new ProvenanceReading
        {
            Status = keys is null ? ProvenanceStatus.Unchecked : signedContext ? ProvenanceStatus.Verified : ProvenanceStatus.Unchecked,
            Source = last is null && !anyHop ? null : source,
            Own = ownEnd,
            OriginalEnd = ownEnd,
            Due = due,
        };
        if (last is null && !anyHop)
        {
            reading.Status = ProvenanceStatus.None; // read from a tier, with no hop before it: nothing says where it came from
        }

        ReadRedrive(reading, headers, key, value, keys, signedContext, ownEnd);
        return reading;
    }

    /// <summary>The redrive that wrote the record back, if one did: its block ends where the record's own headers end.</summary>
    private static void ReadRedrive(ProvenanceReading reading, Headers headers, byte[]? key, byte[]? value, ProvenanceKeys? keys, bool signedContext, int own)
    {
        bool unsignedBelieved = keys is null || (!signedContext && !keys.RequireSignatures);
        if (own > 0 && headers[own - 1].Key == DeadLetterHeaderNames.Block)
        {
            if (ProvenanceBlock.Parse(headers, own - 1) is { IsRedrive: true } redrive && redrive.Own == redrive.Start
                && (redrive.Trailer.Signature is null ? unsignedBelieved : keys is null || Verifies(redrive, headers, key, value, keys)))
            {
                reading.RedriveCount = redrive.RedriveCount;
                reading.OriginalEnd = redrive.Start;
            }

            return; // a block there that is not believed is one of the record's own headers
        }

        (int count, int originalEnd, bool found) = LegacyBlocks.RedriveBefore(headers, own);
        if (found && unsignedBelieved)
        {
            reading.RedriveCount = count;
            reading.OriginalEnd = originalEnd;
        }
    }

    /// <summary>A dead letter written before 1.1: read by that version's rule, unsigned.</summary>
    private static ProvenanceReading ReadLegacyDeadLetter(Headers headers, ProvenanceKeys? keys)
    {
        (LegacyBlocks.Hop source, LegacyBlocks.Hop last, int redriveCount, int originalEnd, _) = LegacyBlocks.ReadDeadLetter(headers);
        bool hasSource = TopicNames.IsPossible(source.Topic);
        if (hasSource && keys is { RequireSignatures: true })
        {
            return Unverified("it was written without signatures (by KafkaProtobuf before 1.1, or a writer without keys), and signatures are required", originalEnd);
        }

        return new ProvenanceReading
        {
            Status = last.ErrorCode is null && !hasSource ? ProvenanceStatus.None : ProvenanceStatus.Unchecked,
            Source = hasSource ? (source.Topic!, source.Partition, source.Offset) : null,
            ErrorCode = last.ErrorCode,
            ErrorMessage = last.ErrorMessage,
            ErrorOffset = last.ErrorOffset,
            Component = last.Component,
            RedriveCount = redriveCount,
            OriginalEnd = originalEnd,
            Own = originalEnd,
        };
    }

    /// <summary>Why a block is not believed, or null: with keys, a signed block must verify, and in a signed context every block must be signed.</summary>
    private static string? TrustProblem(ProvenanceBlock block, string what, Headers headers, byte[]? key, byte[]? value, ProvenanceKeys? keys, bool signedContext)
    {
        if (keys is null)
        {
            return null;
        }

        if (block.Trailer.Signature is null)
        {
            return signedContext ? what + " is not signed" : null;
        }

        return Verifies(block, headers, key, value, keys)
            ? null
            : what + " does not verify: forged, altered after it was signed, or signed with a key this reader does not have";
    }

    private static bool Verifies(ProvenanceBlock block, Headers headers, byte[]? key, byte[]? value, ProvenanceKeys keys) =>
        BlockSignature.Verifies(keys.All, key, value, headers, block.TrailerIndex, block.Trailer.Prefix, block.Trailer.Signature!);

    private static string Mismatch(RetryTier tier, string why) => "the block before it on " + tier.Name + " is not the hop that wrote it there: " + why;

    private static ProvenanceReading Unverified(string problem, int originalEnd) =>
        new() { Status = ProvenanceStatus.Unverified, Problem = "not believed: " + problem, OriginalEnd = originalEnd, Own = originalEnd };

    /// <summary>The index of the last header before <paramref name="end"/> this package could have written (trace headers come after a block), or -1.</summary>
    private static int LastPackageHeader(Headers headers, int end)
    {
        for (int i = end - 1; i >= 0; i--)
        {
            if (headers[i].Key.StartsWith(PackagePrefix, StringComparison.Ordinal))
            {
                return i;
            }
        }

        return -1;
    }
}
