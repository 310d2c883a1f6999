using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;

namespace KafkaProtobuf.Redrive;

/// <summary>One dead letter a plan's dry run read, and what its run will do with it (its record's bytes are not kept).</summary>
public sealed class RedrivePlanEntry
{
    internal RedrivePlanEntry(DeadLetter deadLetter, RedriveOutcome outcome)
    {
        Position = deadLetter.Record.TopicPartitionOffset;
        SourceTopic = deadLetter.SourceTopic;
        SourcePartition = deadLetter.SourcePartition;
        SourceOffset = deadLetter.SourceOffset;
        ErrorCode = deadLetter.ErrorCode;
        Component = deadLetter.Component;
        RedriveCount = deadLetter.RedriveCount;
        Provenance = deadLetter.Provenance;
        ProvenanceProblem = deadLetter.ProvenanceProblem;
        Outcome = outcome;
    }

    /// <summary>Where the dead letter is: its topic, partition and offset in the dead-letter topic.</summary>
    public TopicPartitionOffset Position { get; }

    /// <summary>The topic its record came from, as <see cref="Redrive.DeadLetter.SourceTopic"/>.</summary>
    public string? SourceTopic { get; }

    /// <summary>The partition its record came from, when known.</summary>
    public int? SourcePartition { get; }

    /// <summary>Its record's offset there, when known.</summary>
    public long? SourceOffset { get; }

    /// <summary>The failure's code.</summary>
    public string? ErrorCode { get; }

    /// <summary>The failure's component: <c>key</c>, <c>value</c> or <c>handler</c>.</summary>
    public string? Component { get; }

    /// <summary>How many times its record was redriven already.</summary>
    public int RedriveCount { get; }

    /// <summary>How far its source is believed (<see cref="Redrive.DeadLetter.Provenance"/>).</summary>
    public ProvenanceStatus Provenance { get; }

    /// <summary>Why its source is not believed, in words; otherwise null.</summary>
    public string? ProvenanceProblem { get; }

    /// <summary>Where its record came from, as <see cref="Redrive.DeadLetter.DescribeSource"/> says it.</summary>
    /// <returns>The text (from Kafka: make it inert to show it).</returns>
    public string DescribeSource() => SourceText.Of(SourceTopic, SourcePartition, SourceOffset, Provenance, ProvenanceProblem);

    /// <summary>What the plan's run will do with it (<see cref="RedriveOutcome.Written"/>: write it back).</summary>
    public RedriveOutcome Outcome { get; }
}
