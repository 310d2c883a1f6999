using System.Collections.Generic;
using System.Globalization;
using Confluent.Kafka;
using KafkaProtobuf.Redrive;

namespace KafkaProtobuf.DeadLetters;

/// <summary>
/// Blocks as KafkaProtobuf wrote them before 1.1 gave each a trailer (<see cref="DeadLetterHeaderNames.Block"/>): each
/// starts with <see cref="DeadLetterHeaderNames.ErrorCode"/> and runs to the next; a retry hop's retry headers follow
/// its trace headers. Read by the rule those versions read them by, so that what they wrote still means what it meant:
/// the last block says why the record is here; when it names the retry topic of tier <c>n</c> of a topic, the <c>n</c>
/// blocks before it, naming that topic and each tier before, say where the record was first read; a redrive's three
/// headers stand right before the first block. Unsigned: a reader with keys believes them only where unsigned blocks
/// are (<see cref="ProvenanceKeys.RequireSignatures"/>).
/// </summary>
internal static class LegacyBlocks
{
    /// <summary>A dead letter those versions wrote, read as they read it.</summary>
    public static (Hop Source, Hop Last, int RedriveCount, int OriginalEnd, bool RedriveFound) ReadDeadLetter(Headers headers)
    {
        List<int> blocks = BlocksBefore(headers, headers.Count);
        if (blocks.Count == 0)
        {
            return (default, default, 0, headers.Count, false);
        }

        Hop last = Hop.Read(headers, blocks[blocks.Count - 1], headers.Count);
        int first = FirstHop(headers, blocks, last);
        Hop source = Hop.Read(headers, blocks[first], first + 1 < blocks.Count ? blocks[first + 1] : headers.Count);
        (int count, int originalEnd, bool found) = RedriveBefore(headers, blocks[first]);
        return (source, last, count, originalEnd, found);
    }

    /// <summary>
    /// The hops those versions wrote before <paramref name="end"/>, for a record read from <paramref name="tier"/>: the
    /// first hop's block (where the record was first read) and the last hop's due time; null when the blocks there are
    /// not the <c>n</c> hops of the tier's topic and each tier before.
    /// </summary>
    public static (Hop Root, int RootStart, long? Due)? ChainBefore(Headers headers, int end, RetryTier tier)
    {
        List<int> blocks = BlocksBefore(headers, end);
        int n = tier.Tier;
        if (blocks.Count < n)
        {
            return null;
        }

        for (int hop = 0; hop < n; hop++)
        {
            int index = blocks.Count - n + hop;
            string expected = hop == 0 ? tier.Topic : RetryTopicName.Of(tier.Topic, hop);
            if (Hop.Read(headers, blocks[index], index + 1 < blocks.Count ? blocks[index + 1] : end).Topic != expected)
            {
                return null;
            }
        }

        int rootIndex = blocks.Count - n;
        Hop root = Hop.Read(headers, blocks[rootIndex], rootIndex + 1 < blocks.Count ? blocks[rootIndex + 1] : end);
        if (!TopicNames.IsPossible(root.Topic) || root.Partition is null || root.Offset is null)
        {
            return null;
        }

        long? due = null;
        for (int i = end - 1; i >= blocks[blocks.Count - 1]; i--)
        {
            if (headers[i].Key == DeadLetterHeaderNames.HopDue)
            {
                due = long.TryParse(ProvenanceBlock.Text(headers[i]), NumberStyles.None, CultureInfo.InvariantCulture, out long at) ? at : null;
                break;
            }
        }

        return (root, blocks[rootIndex], due);
    }

    /// <summary>
    /// The headers of the redrive that wrote the record back, if one did, standing right before
    /// <paramref name="own"/> as those versions wrote them: count, time, run. Their count, where the record's own headers
    /// end without them, and whether they are there.
    /// </summary>
    public static (int Count, int OriginalEnd, bool Found) RedriveBefore(Headers headers, int own)
    {
        if (own >= 3 && headers[own - 3].Key == RedriveHeaderNames.Count && headers[own - 2].Key == RedriveHeaderNames.Time && headers[own - 1].Key == RedriveHeaderNames.Run)
        {
            int count = int.TryParse(ProvenanceBlock.Text(headers[own - 3]), NumberStyles.None, CultureInfo.InvariantCulture, out int c) ? c : 0;
            return (count, own - 3, true);
        }

        return (0, own, false);
    }

    private static List<int> BlocksBefore(Headers headers, int end)
    {
        var blocks = new List<int>();
        for (int i = 0; i < end; i++)
        {
            if (headers[i].Key == DeadLetterHeaderNames.ErrorCode)
            {
                blocks.Add(i);
            }
        }

        return blocks;
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

    /// <summary>One block of headers those versions appended: the first of each of its headers, from its error code to the next block.</summary>
    internal readonly struct Hop
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
                        errorCode = ProvenanceBlock.Text(header);
                        break;
                    case DeadLetterHeaderNames.ErrorMessage when !seenMessage:
                        (seenMessage, errorMessage) = (true, ProvenanceBlock.Text(header));
                        break;
                    case DeadLetterHeaderNames.ErrorOffset when !seenErrorOffset:
                        seenErrorOffset = true;
                        errorOffset = int.TryParse(ProvenanceBlock.Text(header), NumberStyles.None, CultureInfo.InvariantCulture, out int at) ? at : null;
                        break;
                    case DeadLetterHeaderNames.Component when !seenComponent:
                        (seenComponent, component) = (true, ProvenanceBlock.Text(header));
                        break;
                    case DeadLetterHeaderNames.SourceTopic when !seenTopic:
                        (seenTopic, topic) = (true, ProvenanceBlock.Text(header));
                        break;
                    case DeadLetterHeaderNames.SourcePartition when !seenPartition:
                        seenPartition = true;
                        partition = int.TryParse(ProvenanceBlock.Text(header), NumberStyles.None, CultureInfo.InvariantCulture, out int p) ? p : null;
                        break;
                    case DeadLetterHeaderNames.SourceOffset when !seenOffset:
                        seenOffset = true;
                        offset = long.TryParse(ProvenanceBlock.Text(header), NumberStyles.None, CultureInfo.InvariantCulture, out long o) ? o : null;
                        break;
                }
            }

            return new Hop(topic, partition, offset, errorCode, errorMessage, errorOffset, component);
        }
    }
}
