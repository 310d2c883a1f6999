using System;
using System.Threading;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Tests.Support;
using Vectors.Telemetry.V1;
using static KafkaProtobuf.Tests.EndToEnd.DeviceRecords;

namespace KafkaProtobuf.Tests.EndToEnd.Chaos;

/// <summary>
/// A member running the README's hand-written loop (<see cref="RecommendedLoop{TKey, TValue}"/>: store each good record's
/// offset, auto-commit, DeadLetter for poison, seek back on an unavailable schema) on its own thread.
/// </summary>
public sealed class LoopMember : ChaosMember
{
    private readonly IConsumer<Reading, Device> _consumer;
    private readonly CancellationTokenSource _stop = new();
    private Thread? _thread;
    private bool _ended;

    public LoopMember(string name, ConsumerConfig config, RegistryClient registry, IProducer<byte[], byte[]> deadLetters, string deadLetterTopic, DeliveryLog log, Action<bool> throttle)
        : base(name, log)
    {
        _consumer = new ConsumerBuilder<Reading, Device>(config)
            .SetProtobufKeyDeserializer()
            .SetProtobufValueDeserializer(registry)
            .SetPartitionsAssignedHandler((consumer, partitions) => OnAssigned(consumer.Committed, partitions))
            .SetPartitionsRevokedHandler((_, partitions) => OnRevoked(partitions))
            .SetErrorHandler((_, error) => OnError(error))
            .SetOffsetsCommittedHandler((_, committed) => OnCommitted(committed))
            .SetLogHandler((_, message) => Remember(message.Level.ToString(), message.Facility, message.Message))
            .Build();
        Loop = new RecommendedLoop<Reading, Device>(_consumer, deadLetters, deadLetterTopic, DeadLetterOffsetHandling.Store)
        {
            Name = name,
            Delivered = record => throttle(Log.Delivered(name, record)),
            AfterGood = record => Good.Enqueue((record.TopicPartitionOffset, SequenceOf(record.Message.Value))),
            AfterDeadLettered = letter => DeadLettered.Enqueue(letter.Record),
            AfterDeadLetterFailure = failure =>
            {
                DeadLetterFailures.Enqueue(failure.Record);
                Log.SeekBack(name, failure.Record);
            },
            AfterSchemaUnavailable = e =>
            {
                SchemaUnavailable.Enqueue(e.ConsumerRecord.TopicPartitionOffset);
                throttle(Log.Delivered(name, e.ConsumerRecord.TopicPartitionOffset)); // given, as the hosted consumer's probe counts it
                Log.SeekBack(name, e.ConsumerRecord.TopicPartitionOffset);
            },
        };
    }

    public RecommendedLoop<Reading, Device> Loop { get; }

    public override string? Failure => Loop.Escaped?.ToString() ?? Loop.StoppedOn?.ToString();

    public override string Phase => Loop.Phase;

    public override void Start(string topic)
    {
        _consumer.Subscribe(topic);
        _thread = Loop.Start(_stop.Token);
    }

    public override void Leave()
    {
        StopLoop();
        if (!_ended)
        {
            _ended = true;
            _consumer.Close();
        }
    }

    public override void Kill()
    {
        StopLoop();
        _ended = true;
        _consumer.Dispose(); // Confluent.Kafka destroys the handle with NO_CONSUMER_CLOSE: no commit, no LeaveGroup
    }

    public override void Dispose()
    {
        StopLoop();
        _consumer.Dispose();
        _stop.Dispose();
    }

    private void StopLoop()
    {
        _stop.Cancel();
        if (_thread is not null && !_thread.Join(JoinDeadline))
        {
            throw new TimeoutException($"{Name}'s loop did not end");
        }
    }
}
