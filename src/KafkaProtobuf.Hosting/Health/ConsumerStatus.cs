using System.Threading;

namespace KafkaProtobuf.Hosting;

/// <summary>One consumer's state, written by its loop, read by the health check (any thread).</summary>
internal sealed class ConsumerStatus(string name)
{
    private int _state = (int)KafkaProtobufConsumerState.Starting;
    private int _failedAttempts;
    private int _schemaUnavailable;

    public string Name { get; } = name;

    public KafkaProtobufConsumerState State => (KafkaProtobufConsumerState)Volatile.Read(ref _state);

    /// <summary>Why it failed, when <see cref="State"/> is <see cref="KafkaProtobufConsumerState.Failed"/>.</summary>
    public string? Failure { get; private set; }

    /// <summary>How many times the handler failed on the record in hand (0 when none is failing).</summary>
    public int FailedAttempts => Volatile.Read(ref _failedAttempts);

    /// <summary>Whether the last record met an unavailable writer's schema and none has been handled since.</summary>
    public bool SchemaUnavailable => Volatile.Read(ref _schemaUnavailable) != 0;

    public void Running() => Volatile.Write(ref _state, (int)KafkaProtobufConsumerState.Running);

    public void Stopped()
    {
        // A failure stays a failure.
        Interlocked.CompareExchange(ref _state, (int)KafkaProtobufConsumerState.Stopped, (int)KafkaProtobufConsumerState.Running);
        Interlocked.CompareExchange(ref _state, (int)KafkaProtobufConsumerState.Stopped, (int)KafkaProtobufConsumerState.Starting);
    }

    public void Failed(string reason)
    {
        Failure = reason;
        Volatile.Write(ref _state, (int)KafkaProtobufConsumerState.Failed);
    }

    public void HandlerFailed(int attempt) => Volatile.Write(ref _failedAttempts, attempt);

    public void SchemaWasUnavailable() => Volatile.Write(ref _schemaUnavailable, 1);

    /// <summary>A record was handled or dead-lettered: nothing is failing now.</summary>
    /// <remarks>Read before written: every record passes here, often from several lanes, and writing an unchanged value would still take the cache line from the others.</remarks>
    public void RecordDone()
    {
        if (Volatile.Read(ref _failedAttempts) != 0)
        {
            Volatile.Write(ref _failedAttempts, 0);
        }

        if (Volatile.Read(ref _schemaUnavailable) != 0)
        {
            Volatile.Write(ref _schemaUnavailable, 0);
        }
    }
}
