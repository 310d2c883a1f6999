namespace KafkaProtobuf.Redrive;

/// <summary>Why a redrive plan may not run now (<see cref="RedrivePlan.Refusal"/>), worded by <see cref="RedriveOutcomes.Describe(RedriveRefusal)"/>.</summary>
public enum RedriveRefusal
{
    /// <summary>It may run (or resume).</summary>
    None = 0,

    /// <summary>Its run is going on.</summary>
    Running = 1,

    /// <summary>It was run to its end: a new plan shows what is left.</summary>
    Completed = 2,

    /// <summary>A plan of the same dead-letter topic and filters (one progress group) is running in this process: two would write records twice.</summary>
    SameFiltersRunning = 3,

    /// <summary>No plan by that id or for that topic is kept (<see cref="RedrivePlans"/>): make one first, with a dry run.</summary>
    NoPlan = 4,
}
