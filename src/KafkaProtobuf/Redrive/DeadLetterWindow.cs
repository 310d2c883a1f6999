using System.Collections.Generic;
using System.Linq;

namespace KafkaProtobuf.Redrive;

/// <summary>One window of a dead-letter topic (<see cref="DeadLetterTopicReader"/>): its partitions' ranges, its dead letters newest first and grouped by failure, and the cursor of the next, older window.</summary>
public sealed class DeadLetterWindow
{
    internal DeadLetterWindow(string topic, IReadOnlyList<DeadLetterPartitionRange> partitions, IReadOnlyList<DeadLetter> deadLetters, DeadLetterCursor? older)
    {
        Topic = topic;
        Partitions = partitions;
        DeadLetters = deadLetters;
        Groups = DeadLetterGroup.Of(deadLetters);
        Older = older;
        Total = partitions.Sum(p => p.End - p.Start);
    }

    /// <summary>The dead-letter topic.</summary>
    public string Topic { get; }

    /// <summary>Every partition of the topic, by number.</summary>
    public IReadOnlyList<DeadLetterPartitionRange> Partitions { get; }

    /// <summary>Records in the topic: each partition's end past its start (compaction or retention may leave fewer).</summary>
    public long Total { get; }

    /// <summary>The window's dead letters, newest first (by timestamp, then offset).</summary>
    public IReadOnlyList<DeadLetter> DeadLetters { get; }

    /// <summary>The window's dead letters grouped by failure (<see cref="DeadLetterGroup.Of"/>).</summary>
    public IReadOnlyList<DeadLetterGroup> Groups { get; }

    /// <summary>Where the next, older window ends; <see langword="null"/> when this one reached the start of every partition.</summary>
    public DeadLetterCursor? Older { get; }
}
