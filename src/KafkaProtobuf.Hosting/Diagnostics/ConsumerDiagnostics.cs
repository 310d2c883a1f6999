using System.Collections.Generic;
using System.Diagnostics;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Diagnostics;

/// <summary>
/// One consumer's events, record by record, written on the consumer's own threads to the <see cref="DiagnosticListener"/>
/// named <see cref="ListenerName"/>, which anyone may subscribe to (<see cref="DiagnosticListener.AllListeners"/>): what
/// must be accounted for record by record (each delivery, stored offset, dead letter, move back), too many for a log.
/// Nothing is built unless a subscriber asked for the event; with none, each call is one field read.
/// </summary>
internal sealed class ConsumerDiagnostics(string consumer, string? group)
{
    /// <summary>The listener's name.</summary>
    public const string ListenerName = "KafkaProtobuf.Hosting";

    /// <summary>Partitions were assigned (<see cref="ConsumerEvent.Partitions"/>).</summary>
    public const string AssignedEvent = ListenerName + ".Assigned";

    /// <summary>Partitions were revoked or lost (<see cref="ConsumerEvent.Partitions"/>, <see cref="ConsumerEvent.Lost"/>).</summary>
    public const string RevokedEvent = ListenerName + ".Revoked";

    /// <summary>A consume gave the consumer a record: good, poison, or one whose writer's schema is unavailable.</summary>
    public const string DeliveredEvent = ListenerName + ".Delivered";

    /// <summary>
    /// The consumer went back to a record, to read it again: its writer's schema was unavailable, or its copy was not
    /// written.
    /// </summary>
    public const string MovedBackEvent = ListenerName + ".MovedBack";

    /// <summary>A record was written to the dead-letter topic.</summary>
    public const string DeadLetteredEvent = ListenerName + ".DeadLettered";

    /// <summary>
    /// The offset past a record its handler completed was stored: it and every earlier record of its partition are done
    /// with (a copy written stores its own, told as <see cref="DeadLetteredEvent"/>).
    /// </summary>
    public const string StoredEvent = ListenerName + ".Stored";

    /// <summary>A commit's outcome (<see cref="ConsumerEvent.Committed"/>).</summary>
    public const string CommittedEvent = ListenerName + ".Committed";

    /// <summary>The Kafka client reported an error (<see cref="ConsumerEvent.Error"/>).</summary>
    public const string ClientErrorEvent = ListenerName + ".ClientError";

    /// <summary>
    /// What records taken and not yet concluded count against the read-ahead budget changed
    /// (<see cref="ConsumerEvent.ReadAheadBytes"/>).
    /// </summary>
    public const string ReadAheadEvent = ListenerName + ".ReadAhead";

    /// <summary>Shutdown began: no record or batch starts its handler from now on.</summary>
    public const string StoppingEvent = ListenerName + ".Stopping";

    private static readonly DiagnosticListener Listener = new(ListenerName);

    public void Assigned(List<TopicPartition> partitions)
    {
        if (Enabled(AssignedEvent))
        {
            Write(AssignedEvent, new ConsumerEvent(consumer, group, partitions: partitions));
        }
    }

    public void Revoked(List<TopicPartition> partitions, bool lost)
    {
        if (Enabled(RevokedEvent))
        {
            Write(RevokedEvent, new ConsumerEvent(consumer, group, partitions: partitions, lost: lost));
        }
    }

    public void Delivered(string topic, Partition partition, Offset offset)
    {
        if (Enabled(DeliveredEvent))
        {
            Write(DeliveredEvent, new ConsumerEvent(consumer, group, position: new TopicPartitionOffset(topic, partition, offset)));
        }
    }

    public void MovedBack(TopicPartitionOffset record, bool schemaUnavailable)
    {
        if (Enabled(MovedBackEvent))
        {
            Write(MovedBackEvent, new ConsumerEvent(consumer, group, position: record, schemaUnavailable: schemaUnavailable));
        }
    }

    public void DeadLettered(TopicPartitionOffset record)
    {
        if (Enabled(DeadLetteredEvent))
        {
            Write(DeadLetteredEvent, new ConsumerEvent(consumer, group, position: record));
        }
    }

    public void Stored(string topic, Partition partition, Offset offset)
    {
        if (Enabled(StoredEvent))
        {
            Write(StoredEvent, new ConsumerEvent(consumer, group, position: new TopicPartitionOffset(topic, partition, offset)));
        }
    }

    public void Committed(CommittedOffsets committed)
    {
        if (Enabled(CommittedEvent))
        {
            Write(CommittedEvent, new ConsumerEvent(consumer, group, committed: committed));
        }
    }

    public void ClientError(Error error)
    {
        if (Enabled(ClientErrorEvent))
        {
            Write(ClientErrorEvent, new ConsumerEvent(consumer, group, error: error));
        }
    }

    public void ReadAhead(long bytes)
    {
        if (Enabled(ReadAheadEvent))
        {
            Write(ReadAheadEvent, new ConsumerEvent(consumer, group, readAheadBytes: bytes));
        }
    }

    public void Stopping()
    {
        if (Enabled(StoppingEvent))
        {
            Write(StoppingEvent, new ConsumerEvent(consumer, group));
        }
    }

    // The first check is one field read: whether anyone subscribed at all.
    private static bool Enabled(string name) => Listener.IsEnabled() && Listener.IsEnabled(name);

#if NET
    [System.Diagnostics.CodeAnalysis.UnconditionalSuppressMessage(
        "Trimming", "IL2026", Justification = "ConsumerEvent's own properties are kept (Write<T>); subscribers that "
            + "reflect into the Kafka types it carries read their public properties, which Confluent.Kafka's trimming root keeps.")]
#endif
    private static void Write(string name, ConsumerEvent payload) => Listener.Write(name, payload);
}
