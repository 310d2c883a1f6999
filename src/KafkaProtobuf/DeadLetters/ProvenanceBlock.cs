using System.Globalization;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf.Redrive;

namespace KafkaProtobuf.DeadLetters;

/// <summary>
/// One block as <see cref="ProvenanceCodec"/> wrote it, read back from its trailer: a failure's (a dead letter's, or a
/// retry hop's, which names the tier it sent the record to) or a redrive's. Only its own headers, between its start
/// and its trailer, are read, the first of each name.
/// </summary>
internal sealed class ProvenanceBlock
{
    private ProvenanceBlock(Headers headers, int trailerIndex, BlockTrailer trailer)
    {
        TrailerIndex = trailerIndex;
        Trailer = trailer;
        IsRedrive = headers[trailer.Start].Key == RedriveHeaderNames.Count;
    }

    public int TrailerIndex { get; }

    public BlockTrailer Trailer { get; }

    public int Start => Trailer.Start;

    public int Own => Trailer.Own;

    /// <summary>A redrive's block; otherwise a failure's.</summary>
    public bool IsRedrive { get; }

    public string? ErrorCode { get; private set; }

    public string? ErrorMessage { get; private set; }

    public string? Component { get; private set; }

    public int? ErrorOffset { get; private set; }

    public string SourceTopic { get; private set; } = string.Empty;

    public int SourcePartition { get; private set; }

    public long SourceOffset { get; private set; }

    /// <summary>The tier its writer read the record from, when it said so.</summary>
    public RetryTier? ReadFrom { get; private set; }

    /// <summary>A retry hop's: the tier it sent the record to.</summary>
    public int? SentToTier { get; private set; }

    /// <summary>A retry hop's: when the copy is due, in Unix milliseconds.</summary>
    public long? Due { get; private set; }

    /// <summary>A redrive's: how many times the record was redriven, that one included.</summary>
    public int RedriveCount { get; private set; }

    /// <summary>The block whose trailer is at <paramref name="trailerIndex"/>, or null when it is not one the codec writes.</summary>
    public static ProvenanceBlock? Parse(Headers headers, int trailerIndex)
    {
        if (!BlockTrailer.TryParse(headers[trailerIndex].GetValueBytes(), out BlockTrailer trailer)
            || trailer.Own > trailer.Start || trailer.Start >= trailerIndex)
        {
            return null;
        }

        string first = headers[trailer.Start].Key;
        if (first is not (DeadLetterHeaderNames.ErrorCode or RedriveHeaderNames.Count))
        {
            return null;
        }

        var block = new ProvenanceBlock(headers, trailerIndex, trailer);
        return block.ReadFields(headers) ? block : null;
    }

    private bool ReadFields(Headers headers)
    {
        string? topic = null, partition = null, offset = null, tier = null, firstTopic = null, sentTo = null, due = null, count = null;
        bool message = false, component = false, errorOffset = false;
        for (int i = Start; i < TrailerIndex; i++)
        {
            IHeader header = headers[i];
            switch (header.Key)
            {
                case DeadLetterHeaderNames.ErrorCode when i == Start:
                    ErrorCode = Text(header);
                    break;
                case DeadLetterHeaderNames.ErrorMessage when !message:
                    (message, ErrorMessage) = (true, Text(header));
                    break;
                case DeadLetterHeaderNames.Component when !component:
                    (component, Component) = (true, Text(header));
                    break;
                case DeadLetterHeaderNames.ErrorOffset when !errorOffset:
                    errorOffset = true;
                    ErrorOffset = int.TryParse(Text(header), NumberStyles.None, CultureInfo.InvariantCulture, out int at) ? at : null;
                    break;
                case DeadLetterHeaderNames.SourceTopic:
                    topic ??= Text(header);
                    break;
                case DeadLetterHeaderNames.SourcePartition:
                    partition ??= Text(header);
                    break;
                case DeadLetterHeaderNames.SourceOffset:
                    offset ??= Text(header);
                    break;
                case DeadLetterHeaderNames.SourceTier:
                    tier ??= Text(header);
                    break;
                case DeadLetterHeaderNames.SourceFirstTopic:
                    firstTopic ??= Text(header);
                    break;
                case DeadLetterHeaderNames.HopTier:
                    sentTo ??= Text(header);
                    break;
                case DeadLetterHeaderNames.HopDue:
                    due ??= Text(header);
                    break;
                case RedriveHeaderNames.Count when i == Start:
                    count = Text(header);
                    break;
            }
        }

        if (IsRedrive)
        {
            if (!int.TryParse(count, NumberStyles.None, CultureInfo.InvariantCulture, out int redrives))
            {
                return false;
            }

            RedriveCount = redrives;
            return true;
        }

        if (!TopicNames.IsPossible(topic)
            || !int.TryParse(partition, NumberStyles.None, CultureInfo.InvariantCulture, out int p)
            || !long.TryParse(offset, NumberStyles.None, CultureInfo.InvariantCulture, out long o))
        {
            return false; // a failure block always names where its writer read the record
        }

        (SourceTopic, SourcePartition, SourceOffset) = (topic!, p, o);
        if (tier is not null || firstTopic is not null)
        {
            if (!int.TryParse(tier, NumberStyles.None, CultureInfo.InvariantCulture, out int n) || n < 1 || !TopicNames.IsPossible(firstTopic))
            {
                return false;
            }

            ReadFrom = new RetryTier(firstTopic!, n);
        }

        if (sentTo is not null)
        {
            if (!int.TryParse(sentTo, NumberStyles.None, CultureInfo.InvariantCulture, out int to) || to < 1)
            {
                return false;
            }

            SentToTier = to;
            Due = long.TryParse(due, NumberStyles.None, CultureInfo.InvariantCulture, out long dueAt) ? dueAt : null;
        }

        return true;
    }

    /// <summary>Header text from Kafka: invalid UTF-8 read as replacement characters, never thrown.</summary>
    internal static string? Text(IHeader header) => header.GetValueBytes() is { } bytes ? Encoding.UTF8.GetString(bytes) : null;
}
