using System;
using System.Collections.Generic;
using System.Diagnostics;
using Confluent.Kafka;
using KafkaProtobuf.Hosting;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// What a test hears of one hosted consumer (by name and group: tests run side by side, each with a group of its own)
/// through its diagnostic events, the <c>KafkaProtobuf.Hosting</c> <see cref="DiagnosticListener"/> any application
/// may subscribe to; on the consumer's own threads, as they happen. Read as an application must read them: by the
/// public event names (<see cref="KafkaProtobufConsumerDiagnostics"/>) and the payload's public type
/// (<see cref="KafkaProtobufConsumerEvent"/>). A test's subscriber overrides the events it records; the rest are ignored. Subscribed from
/// construction until disposed.
/// </summary>
internal abstract class ConsumerEvents : IObserver<DiagnosticListener>, IObserver<KeyValuePair<string, object?>>, IDisposable
{
    private readonly string _consumer;
    private readonly string _group;
    private readonly List<IDisposable> _subscriptions = [];

    protected ConsumerEvents(string consumer, string group)
    {
        _consumer = consumer;
        _group = group;
        lock (_subscriptions)
        {
            _subscriptions.Add(DiagnosticListener.AllListeners.Subscribe(this));
        }
    }

    public virtual void Assigned(IReadOnlyList<TopicPartition> partitions)
    {
    }

    public virtual void Revoked(IReadOnlyList<TopicPartition> partitions, bool lost)
    {
    }

    /// <summary>Consume gave the loop this record (good, poison, or one whose writer's schema is unavailable).</summary>
    public virtual void Delivered(TopicPartitionOffset record)
    {
    }

    /// <summary>The consumer went back to this record (its copy was not written, or its schema was unavailable).</summary>
    public virtual void MovedBack(TopicPartitionOffset record, bool schemaUnavailable)
    {
    }

    public virtual void DeadLettered(TopicPartitionOffset record)
    {
    }

    /// <summary>The record's offset was stored: it and, in its partition, every earlier record are done with.</summary>
    public virtual void Stored(TopicPartitionOffset record)
    {
    }

    public virtual void Committed(CommittedOffsets offsets)
    {
    }

    public virtual void ClientError(Error error)
    {
    }

    /// <summary>What records taken and not yet concluded count against the read-ahead budget, now.</summary>
    public virtual void ReadAhead(long bytes)
    {
    }

    /// <summary>Shutdown began: nothing starts its handler from now on.</summary>
    public virtual void Stopping()
    {
    }

    public void Dispose()
    {
        lock (_subscriptions)
        {
            _subscriptions.ForEach(s => s.Dispose());
            _subscriptions.Clear();
        }
    }

    void IObserver<DiagnosticListener>.OnNext(DiagnosticListener listener)
    {
        if (listener.Name == KafkaProtobufConsumerDiagnostics.ListenerName)
        {
            lock (_subscriptions)
            {
                _subscriptions.Add(listener.Subscribe(this));
            }
        }
    }

    void IObserver<KeyValuePair<string, object?>>.OnNext(KeyValuePair<string, object?> value)
    {
        // The payload's public type, as an application subscribes (the event names are KafkaProtobufConsumerDiagnostics').
        if (value.Value is not KafkaProtobufConsumerEvent e || e.ConsumerName != _consumer || e.GroupId != _group)
        {
            return;
        }

        switch (value.Key)
        {
            case KafkaProtobufConsumerDiagnostics.AssignedEvent:
                Assigned(e.Partitions!);
                break;
            case KafkaProtobufConsumerDiagnostics.RevokedEvent:
                Revoked(e.Partitions!, e.Lost);
                break;
            case KafkaProtobufConsumerDiagnostics.DeliveredEvent:
                Delivered(e.Position!);
                break;
            case KafkaProtobufConsumerDiagnostics.MovedBackEvent:
                MovedBack(e.Position!, e.SchemaUnavailable);
                break;
            case KafkaProtobufConsumerDiagnostics.DeadLetteredEvent:
                DeadLettered(e.Position!);
                break;
            case KafkaProtobufConsumerDiagnostics.StoredEvent:
                Stored(e.Position!);
                break;
            case KafkaProtobufConsumerDiagnostics.CommittedEvent:
                Committed(e.Committed!);
                break;
            case KafkaProtobufConsumerDiagnostics.ClientErrorEvent:
                ClientError(e.Error!);
                break;
            case KafkaProtobufConsumerDiagnostics.ReadAheadEvent:
                ReadAhead(e.ReadAheadBytes);
                break;
            case KafkaProtobufConsumerDiagnostics.StoppingEvent:
                Stopping();
                break;
        }
    }

    void IObserver<DiagnosticListener>.OnCompleted()
    {
    }

    void IObserver<DiagnosticListener>.OnError(Exception error)
    {
    }

    void IObserver<KeyValuePair<string, object?>>.OnCompleted()
    {
    }

    void IObserver<KeyValuePair<string, object?>>.OnError(Exception error)
    {
    }
}

/// <summary>The read-ahead count of one consumer: the most it reached.</summary>
internal sealed class ReadAheadCount(string consumer, string group) : ConsumerEvents(consumer, group)
{
    private long _most;

    public long Most => System.Threading.Interlocked.Read(ref _most);

    public override void ReadAhead(long bytes)
    {
        long most;
        while (bytes > (most = System.Threading.Interlocked.Read(ref _most)) && System.Threading.Interlocked.CompareExchange(ref _most, bytes, most) != most)
        {
        }
    }
}

/// <summary>Whether one consumer's shutdown began.</summary>
internal sealed class StoppingSeen(string consumer, string group) : ConsumerEvents(consumer, group)
{
    private volatile bool _stopping;

    public bool Seen => _stopping;

    public override void Stopping() => _stopping = true;
}
