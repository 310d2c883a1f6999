using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Hosting.Health;
using KafkaProtobuf.Tests.Hosting;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Vectors.Telemetry.V1;
using static KafkaProtobuf.Tests.EndToEnd.DeviceRecords;

namespace KafkaProtobuf.Tests.EndToEnd.Chaos;

/// <summary>
/// A member running the hosted consumer (<c>AddKafkaProtobufConsumer</c>) in its own generic host: registry-resolved
/// values, a dead-letter topic, and a handler (of records, or of batches) that fails now and then (<see cref="FailsOnce"/>),
/// which the consumer retries in place. What it does is seen through the consumer's diagnostic events, on the
/// consumer's own threads. It cannot be killed in-process (nothing in a process can end a consumer without closing it
/// but the process's end): <see cref="Kill"/> hangs it instead (<see cref="ChaosMember.Kill"/>); a real process killed
/// mid-stream is <c>HostedConsumerProcessTests</c>'s.
/// </summary>
public sealed class HostedMember : ChaosMember
{
    private readonly IHost _host;
    private readonly Events _events;
    private readonly IConsumer<Ignore, Ignore> _offsets; // asks the group's committed offsets, for the log
    private readonly ConcurrentDictionary<int, int> _attempts = new();
    private readonly ManualResetEventSlim _hung = new(initialState: true); // reset: the loop thread stops at its next event
    private volatile string _phase = "not started";
    private long _lastDelivery;
    private long _readAhead;
    private bool _ended;

    /// <param name="batches">Null: a record handler; else a batch handler making batches so.</param>
    public HostedMember(string name, ConsumerConfig config, RegistryClient registry, ProducerConfig deadLetterProducer, string deadLetterTopic, string topic, DeliveryLog log, Action<bool> throttle, int maxConcurrentHandlers, HandlingOrder handlingOrder, BatchOptions? batches = null)
        : base(name, log)
    {
        var builder = new HostApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        _events = new Events(this, name, config.GroupId);
        _offsets = new ConsumerBuilder<Ignore, Ignore>(new ConsumerConfig { BootstrapServers = config.BootstrapServers, GroupId = config.GroupId }).Build();

        // A hung member is noticed once it has not polled for this long: the session's length, as a killed one's.
        config.MaxPollIntervalMs = 6_000;
        // The consumer's log (librdkafka's lines included) into ChaosMember.RecentLog.
        builder.Logging.AddProvider(new CapturedLog((level, id, line) => Remember(level.ToString(), id.Id.ToString(System.Globalization.CultureInfo.InvariantCulture), line)));
        KafkaProtobufConsumerBuilder<Reading, Device> consumer = builder.Services
            .AddKafkaProtobufConsumer<Reading, Device>(name, options =>
            {
                options.Consumer = config;
                options.Topics.Add(topic);
                options.DeadLetterTopic = deadLetterTopic;
                options.CopyProducer = deadLetterProducer;
                // Half the 6 s poll interval: the loop does not poll while it waits for a copy. Before the consumer cut a
                // longer CopyTimeout to that half itself, a member at the default 10 s waiting on a dead-letter partition
                // without a leader left its group (MAXPOLL, seen once in a loaded full run: a 5.9 s wait for a copy
                // whose producer timed it out after 1 s of trying). Said here so that no cut-down warning is logged.
                options.CopyTimeout = TimeSpan.FromSeconds(3);
                options.ReadAgainDelay = TimeSpan.FromMilliseconds(100);
                options.FailureExitCode = 0; // not the test process's exit code
                options.HandlerFailures.RetryBackoff = TimeSpan.FromMilliseconds(10);
                options.HandlerFailures.MaxRetryBackoff = TimeSpan.FromMilliseconds(100);
                options.StopApplicationOnFailure = false; // the test reads the failure from Failure
                options.MaxConcurrentHandlers = maxConcurrentHandlers;
                options.HandlingOrder = handlingOrder;
                if (batches is not null)
                {
                    options.Batches.MaxSize = batches.MaxSize;
                    options.Batches.MaxWait = batches.MaxWait;
                    options.Batches.AcrossPartitions = batches.AcrossPartitions;
                }
            })
            .WithProtobufKeys()
            .WithProtobufValues(_ => registry);
        if (batches is null)
        {
            consumer.Handle((record, _) =>
            {
                // In partition-parallel mode every third record awaits, so lanes have workers and, per key, records
                // finish out of their partition's order; the rest complete at once, on the loop thread.
                int sequence = SequenceOf(record.Message.Value);
                return maxConcurrentHandlers > 1 && sequence % 3 == 0 ? HandleAfterYield(record, sequence) : Handle(record, sequence);
            });
        }
        else
        {
            // Partition-parallel batches await, so that several partitions' batches are in handlers at once.
            consumer.HandleBatch((records, _) => maxConcurrentHandlers > 1 ? HandleBatchAfterYield(records) : HandleBatch(records));
        }

        _host = builder.Build();
        Throttle = throttle;
    }

    private Task Handle(ConsumeResult<Reading, Device> record, int sequence)
    {
        if (FailsOnce(sequence) && _attempts.AddOrUpdate(sequence, 1, (_, n) => n + 1) == 1)
        {
            throw new TransientHandlerException(sequence);
        }

        Good.Enqueue((record.TopicPartitionOffset, sequence));
        return Task.CompletedTask;
    }

    /// <summary>A batch with a record that fails once fails as a whole on that record's first attempt (and is retried as a batch).</summary>
    private Task HandleBatch(IReadOnlyList<ConsumeResult<Reading, Device>> records)
    {
        bool fails = false;
        foreach (ConsumeResult<Reading, Device> record in records)
        {
            int sequence = SequenceOf(record.Message.Value);
            fails |= FailsOnce(sequence) && _attempts.AddOrUpdate(sequence, 1, (_, n) => n + 1) == 1;
        }

        if (fails)
        {
            throw new TransientHandlerException(SequenceOf(records[0].Message.Value));
        }

        foreach (ConsumeResult<Reading, Device> record in records)
        {
            Good.Enqueue((record.TopicPartitionOffset, SequenceOf(record.Message.Value)));
        }

        return Task.CompletedTask;
    }

    private async Task HandleBatchAfterYield(IReadOnlyList<ConsumeResult<Reading, Device>> records)
    {
        await Task.Yield();
        await HandleBatch(records);
    }

    private async Task HandleAfterYield(ConsumeResult<Reading, Device> record, int sequence)
    {
        await Task.Yield();
        await Handle(record, sequence);
    }

    /// <summary>The handler's own failure, thrown once for some records: the consumer must retry in place, commit nothing past them, lose none.</summary>
    public sealed class TransientHandlerException(int sequence) : Exception("the handler failed transiently on record " + sequence);

    /// <summary>Handler failures the consumer retried: the sequence numbers that failed on their first attempt.</summary>
    public IEnumerable<int> Retried => _attempts.Where(a => a.Value > 1).Select(a => a.Key);

    /// <summary>Records whose handler failed on its first attempt.</summary>
    public IEnumerable<int> FailedFirst => _attempts.Keys;

    public override string? Failure
    {
        get
        {
            ConsumerStatus status = _host.Services.GetRequiredService<KafkaProtobufConsumerStates>().For(Name);
            return status.State == KafkaProtobufConsumerState.Failed ? status.Failure : null;
        }
    }

    public override string Phase =>
        _phase + " (last delivery " + (Environment.TickCount64 - Volatile.Read(ref _lastDelivery)) + " ms ago, read ahead "
        + Volatile.Read(ref _readAhead) + " B) " + Partitions();

    private Action<bool> Throttle { get; }

    /// <summary>One good record in 500 fails on its first attempt.</summary>
    public static bool FailsOnce(int sequence) => sequence % 500 == 250;

    public override void Start(string topic)
    {
        _host.StartAsync().WaitAsync(JoinDeadline).GetAwaiter().GetResult();
        _phase = "running";
    }

    public override void Leave()
    {
        if (!_ended)
        {
            _ended = true;
            _host.StopAsync().WaitAsync(JoinDeadline).GetAwaiter().GetResult();
            _phase = "left";
        }
    }

    /// <summary>
    /// Hangs the member: its loop thread stops at its next event (a delivery, a store, a dead letter, a change of its
    /// read-ahead) and neither consumes, stores nor leaves the group again; the group takes its partitions once it has
    /// not polled for <c>max.poll.interval.ms</c>. Its handlers on workers may finish, but nothing they did is stored.
    /// </summary>
    public override void Kill()
    {
        _ended = true; // no Leave: the host's stop would wait for the hung loop
        _hung.Reset();
        _phase = "hung";
    }

    public override void Dispose()
    {
        _hung.Set();
        Leave();
        _host.Dispose();
        _events.Dispose();
        _offsets.Dispose();
        _hung.Dispose();
    }

    /// <summary>
    /// For a stall's report: the consumer as an operator sees it, each partition's position, end and why it is paused
    /// (the read-ahead budget, a record read again later, a copy not written) or what it waits for.
    /// </summary>
    private string Partitions()
    {
        ConsumerSnapshot? consumer = _host.Services.GetRequiredService<KafkaProtobufConsumerOperations>().GetConsumers().SingleOrDefault(c => c.Name == Name);
        return consumer is null ? "no snapshot" : $"{consumer.State}, {consumer.RecordsInHandlers} records in handlers, partitions ["
            + string.Join(", ", consumer.Partitions.Select(p => $"p{p.Partition} at {p.Position?.ToString(CultureInfo.InvariantCulture) ?? "?"} of "
                + $"{p.End?.ToString(CultureInfo.InvariantCulture) ?? "?"} {(p.Pauses == PartitionPauses.None ? "fetching" : "paused: " + p.Pauses)}"
                + (p.WaitingFor is { } waiting ? " waiting for " + waiting : string.Empty))) + "]";
    }

    /// <summary>On the loop thread: a hung member stops here.</summary>
    private void HangIfKilled() => _hung.Wait();

    /// <summary>The member's consumer's events, on its own threads.</summary>
    private sealed class Events(HostedMember member, string name, string group) : ConsumerEvents(name, group)
    {
        public override void Assigned(IReadOnlyList<TopicPartition> partitions) =>
            member.OnAssigned((asked, timeout) => member._offsets.Committed(asked, timeout), [.. partitions]);

        public override void Revoked(IReadOnlyList<TopicPartition> partitions, bool lost) =>
            member.OnRevoked([.. partitions.Select(p => new TopicPartitionOffset(p, Offset.Unset))], lost);

        public override void Delivered(TopicPartitionOffset record)
        {
            member.HangIfKilled();
            Volatile.Write(ref member._lastDelivery, Environment.TickCount64);
            member.Throttle(member.Log.Delivered(member.Name, record));
        }

        public override void MovedBack(TopicPartitionOffset record, bool schemaUnavailable)
        {
            (schemaUnavailable ? member.SchemaUnavailable : member.DeadLetterFailures).Enqueue(record);
            member.Log.SeekBack(member.Name, record);
        }

        public override void DeadLettered(TopicPartitionOffset record)
        {
            member.DeadLettered.Enqueue(record); // written: it counts, whatever comes after
            member.HangIfKilled();
        }

        // Deliveries and commits explain every re-read here; the order of stores is pinned by HostedConsumerParallelTests.
        public override void Stored(TopicPartitionOffset record) => member.HangIfKilled();

        public override void ReadAhead(long bytes)
        {
            Volatile.Write(ref member._readAhead, bytes);
            member.HangIfKilled();
        }

        public override void Committed(CommittedOffsets offsets) => member.OnCommitted(offsets);

        public override void ClientError(Error error) => member.OnError(error);
    }
}
