namespace KafkaProtobuf.Redrive;

/// <summary>Where a <see cref="RedrivePlan"/> is.</summary>
public enum RedrivePlanState
{
    /// <summary>Its dry run is done; it has not run.</summary>
    Planned,

    /// <summary>Its run is going on.</summary>
    Running,

    /// <summary>Its run stopped before the end (cancelled, or a write or commit failed): running it again resumes where it stopped.</summary>
    Stopped,

    /// <summary>Its run wrote everything it planned: it does not run again.</summary>
    Completed,
}
