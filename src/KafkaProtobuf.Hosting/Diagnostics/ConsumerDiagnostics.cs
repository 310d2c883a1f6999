using System.Collections.Generic;
using System.Diagnostics;
using Confluent.Kafka;
using Events = KafkaProtobuf.Hosting.KafkaProtobufConsumerDiagnostics;
using Payload = KafkaProtobuf.Hosting.KafkaProtobufConsumerEvent;

namespace KafkaProtobuf.Hosting.Diagnostics;

/// <summary>
/// One consumer's events, record by record, written on the consumer's own threads to the <see cref="DiagnosticListener"/>
/// named <see cref="Events.ListenerName"/>, which anyone may subscribe to: what
/// must be accounted for record by record (each delivery, stored offset, dead letter, move back), too many for a log.
/// Nothing is built unless a subscriber asked for the event; with none, each call is one field read.
/// </summary>
internal sealed class ConsumerDiagnostics(string consumer, string? group)
{
    private static readonly DiagnosticListener Listener = new(Events.ListenerName);

    public void Assigned(List<TopicPartition> partitions)
    {
        if (Enabled(Events.AssignedEvent))
        {
            Write(Events.AssignedEvent, new Payload(consumer, group, partitions: partitions));
        }
    }

    public void Revoked(List<TopicPartition> partitions, bool lost)
    {
        if (Enabled(Events.RevokedEvent))
        {
            Write(Events.RevokedEvent, new Payload(consumer, group, partitions: partitions, lost: lost));
        }
    }

    public void Delivered(string topic, Partition partition, Offset offset)
    {
        if (Enabled(Events.DeliveredEvent))
        {
            Write(Events.DeliveredEvent, new Payload(consumer, group, position: new TopicPartitionOffset(topic, partition, offset)));
        }
    }

    public void MovedBack(TopicPartitionOffset record, bool schemaUnavailable)
    {
        if (Enabled(Events.MovedBackEvent))
        {
            Write(Events.MovedBackEvent, new Payload(consumer, group, position: record, schemaUnavailable: schemaUnavailable));
        }
    }

    public void DeadLettered(TopicPartitionOffset record)
    {
        if (Enabled(Events.DeadLetteredEvent))
        {
            Write(Events.DeadLetteredEvent, new Payload(consumer, group, position: record));
        }
    }

    public void Stored(string topic, Partition partition, Offset offset)
    {
        if (Enabled(Events.StoredEvent))
        {
            Write(Events.StoredEvent, new Payload(consumer, group, position: new TopicPartitionOffset(topic, partition, offset)));
        }
    }

    public void Committed(CommittedOffsets committed)
    {
        if (Enabled(Events.CommittedEvent))
        {
            Write(Events.CommittedEvent, new Payload(consumer, group, committed: committed));
        }
    }

    public void ClientError(Error error)
    {
        if (Enabled(Events.ClientErrorEvent))
        {
            Write(Events.ClientErrorEvent, new Payload(consumer, group, error: error));
        }
    }

    public void ReadAhead(long bytes)
    {
        if (Enabled(Events.ReadAheadEvent))
        {
            Write(Events.ReadAheadEvent, new Payload(consumer, group, readAheadBytes: bytes));
        }
    }

    public void Stopping()
    {
        if (Enabled(Events.StoppingEvent))
        {
            Write(Events.StoppingEvent, new Payload(consumer, group));
        }
    }

    // The first check is one field read: whether anyone subscribed at all.
    private static bool Enabled(string name) => Listener.IsEnabled() && Listener.IsEnabled(name);

#if NET
    [System.Diagnostics.CodeAnalysis.UnconditionalSuppressMessage(
        "Trimming", "IL2026", Justification = "KafkaProtobufConsumerEvent's own properties are kept (Write<T>); subscribers that "
            + "reflect into the Kafka types it carries read their public properties, which Confluent.Kafka's trimming root keeps.")]
#endif
    private static void Write(string name, KafkaProtobufConsumerEvent payload) => Listener.Write(name, payload);
}
