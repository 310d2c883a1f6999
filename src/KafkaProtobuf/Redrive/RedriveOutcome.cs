namespace KafkaProtobuf.Redrive;

/// <summary>What a redrive did with one dead letter.</summary>
public enum RedriveOutcome
{
    /// <summary>Written back (or, in a dry run, would have been).</summary>
    Written,

    /// <summary>Left alone: a filter did not match.</summary>
    SkippedByFilter,

    /// <summary>Left alone: redriven <see cref="RedriveOptions.MaxRedrives"/> times already, and the run was not forced.</summary>
    SkippedForLoops,

    /// <summary>Left alone: it carries no <c>kafkaprotobuf.source.topic</c> header, so where it belongs is not known.</summary>
    SkippedWithoutSource,

    /// <summary>Writing it failed; the run stopped there, and it is redriven by the next run.</summary>
    Failed,

    /// <summary>
    /// Left alone: a block its source rests on is not believed (<see cref="DeadLetters.ProvenanceStatus.Unverified"/>:
    /// forged, altered, signed with another key, or unsigned where signatures are needed), so where it belongs is not known.
    /// </summary>
    SkippedUnverified = 5,
}
