using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Tests.Support;
using Vectors.Telemetry.V1;

namespace KafkaProtobuf.Tests.EndToEnd.Chaos;

/// <summary>
/// One member of the chaos test's consumer group: the README's loop (store each good record's offset, auto-commit,
/// DeadLetter for poison) on its own thread, with what it was given written to the shared <see cref="DeliveryLog"/>.
/// It can leave as a user's service does (<see cref="Leave"/>: Close commits and leaves the group) or die (<see cref="Kill"/>:
/// no commit, no LeaveGroup; the group notices when its session times out).
/// </summary>
public sealed class GroupMember : IDisposable
{
    private static readonly TimeSpan JoinDeadline = TimeSpan.FromSeconds(60);

    private readonly IConsumer<Reading, Device> _consumer;
    private readonly CancellationTokenSource _stop = new();
    private readonly DeliveryLog _log;
    private Thread? _thread;
    private int _assignments;
    private bool _ended;

    public GroupMember(string name, ConsumerConfig config, IProducer<byte[], byte[]> deadLetters, string deadLetterTopic, DeliveryLog log, Action<bool> throttle)
    {
        Name = name;
        _log = log;
        _consumer = new ConsumerBuilder<Reading, Device>(config)
            .SetProtobufKeyDeserializer()
            .SetProtobufValueDeserializer()
            .SetPartitionsAssignedHandler((consumer, partitions) =>
            {
                // Observation only: librdkafka starts each partition at the group's committed offset, as without a
                // handler; asking for it here lets the log explain where the member's runs start.
                foreach (TopicPartitionOffset committed in CommittedOffsets(consumer, partitions))
                {
                    _log.Assigned(name, committed.Offset == Offset.Unset ? new TopicPartitionOffset(committed.TopicPartition, 0) : committed);
                }

                Interlocked.Add(ref _assignments, partitions.Count);
            })
            .SetPartitionsRevokedHandler((_, partitions) => partitions.ForEach(p => _log.Revoked(name, p.TopicPartition)))
            .SetErrorHandler((_, error) => Errors.Enqueue((_log.Step, error)))
            .SetOffsetsCommittedHandler((_, committed) =>
            {
                // librdkafka lists every assigned partition with the request's error, also those it had nothing to
                // commit for (offset unset): only partitions with an offset were in the request.
                foreach (TopicPartitionOffsetError result in committed.Offsets.Where(o => o.Offset.Value >= 0))
                {
                    Commits.Enqueue((_log.Step, result));
                    if (result.Error.IsError)
                    {
                        CommitFailures.Enqueue((_log.Step, result.Error.Code));
                    }
                }

            })
            .SetLogHandler((_, _) => { }) // librdkafka's logs of the injected faults: counted through the handlers above
            .Build();
        Loop = new RecommendedLoop<Reading, Device>(_consumer, deadLetters, deadLetterTopic, DeadLetterOffsetHandling.Store)
        {
            Name = name,
            Delivered = record => throttle(_log.Delivered(name, record)),
            AfterDeadLetterFailure = failure => _log.SeekBack(name, failure.Record),
        };
    }

    public string Name { get; }

    public RecommendedLoop<Reading, Device> Loop { get; }

    /// <summary>Partitions assigned to this member so far, counted over every rebalance.</summary>
    public int Assignments => Volatile.Read(ref _assignments);

    public ConcurrentQueue<(string Step, Error Error)> Errors { get; } = new();

    public ConcurrentQueue<(string Step, ErrorCode Code)> CommitFailures { get; } = new();

    /// <summary>Every partition's outcome in every commit the member made (auto-commit, on revoke, on close).</summary>
    public ConcurrentQueue<(string Step, TopicPartitionOffsetError Outcome)> Commits { get; } = new();

    public void Start(string topic)
    {
        _consumer.Subscribe(topic);
        _thread = Loop.Start(_stop.Token);
    }

    /// <summary>Stops the loop, then closes the consumer: the stored offsets are committed and the member leaves the group.</summary>
    public void Leave()
    {
        StopLoop();
        if (!_ended)
        {
            _ended = true;
            _consumer.Close();
        }
    }

    /// <summary>Stops the loop and destroys the consumer without closing it: what a killed process leaves behind.</summary>
    public void Kill()
    {
        StopLoop();
        _ended = true;
        _consumer.Dispose(); // Confluent.Kafka destroys the handle with NO_CONSUMER_CLOSE: no commit, no LeaveGroup
    }

    public void Dispose()
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

    private static List<TopicPartitionOffset> CommittedOffsets(IConsumer<Reading, Device> consumer, List<TopicPartition> partitions)
    {
        DateTime deadline = DateTime.UtcNow + JoinDeadline;
        while (true)
        {
            try
            {
                return consumer.Committed(partitions, TimeSpan.FromSeconds(5));
            }
            catch (KafkaException) when (DateTime.UtcNow < deadline)
            {
                // the coordinator is down or moving: ask again
            }
        }
    }
}
