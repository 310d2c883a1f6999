namespace KafkaProtobuf.Hosting;

/// <summary>Where a hosted consumer is in its life, as its health check reports it.</summary>
public enum KafkaProtobufConsumerState
{
    /// <summary>Registered; the host has not started it yet.</summary>
    Starting = 0,

    /// <summary>Reading and handling records.</summary>
    Running = 1,

    /// <summary>Stopped by the host's shutdown.</summary>
    Stopped = 2,

    /// <summary>
    /// Stopped for good on a failure: a fatal Kafka error, a dead letter that could not be written, a handler failure
    /// whose policy is to stop.
    /// </summary>
    Failed = 3,
}
