using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Hosting.Health;
using KafkaProtobuf.Hosting.Service;
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
/// which the consumer retries in place. What it does is seen through the consumer's probe, on the consumer's own threads.
/// </summary>
public sealed class HostedMember : ChaosMember, IConsumerProbe
{
    private readonly IHost _host;
    private readonly ConcurrentDictionary<int, int> _attempts = new();
    private volatile string _phase = "not started";
    private long _lastDelivery;
    private bool _ended;

    /// <param name="batches">Null: a record handler; else a batch handler making batches so.</param>
    public HostedMember(string name, ConsumerConfig config, RegistryClient registry, ProducerConfig deadLetterProducer, string deadLetterTopic, string topic, DeliveryLog log, Action<bool> throttle, int maxConcurrentHandlers, HandlingOrder handlingOrder, BatchOptions? batches = null)
        : base(name, log)
    {
        var builder = new HostApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Services.AddSingleton<IConsumerProbe>(this);
        // The consumer's log (librdkafka's lines included) into ChaosMember.RecentLog.
        builder.Logging.AddProvider(new CapturedLog((level, id, line) => Remember(level.ToString(), id.Id.ToString(System.Globalization.CultureInfo.InvariantCulture), line)));
        KafkaProtobufConsumerBuilder<Reading, Device> consumer = builder.Services
            .AddKafkaProtobufConsumer<Reading, Device>(name, options =>
            {
                options.Consumer = config;
                options.Topics.Add(topic);
                options.DeadLetterTopic = deadLetterTopic;
                options.CopyProducer = deadLetterProducer;
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
        Service = _host.Services.GetServices<IHostedService>().OfType<KafkaProtobufConsumerService<Reading, Device>>().Single();
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

    public override string Phase => _phase + " (loop thread " + Service.LoopThreadState + ", last delivery " + (Environment.TickCount64 - Volatile.Read(ref _lastDelivery)) + " ms ago)";

    private Action<bool> Throttle { get; }

    private KafkaProtobufConsumerService<Reading, Device> Service { get; }

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

    public override void Kill()
    {
        _ended = true;
        Service.Abandon();
        _phase = "killed";
    }

    public override void Dispose()
    {
        Leave();
        _host.Dispose();
    }

    void IConsumerProbe.Assigned<TKey, TValue>(string consumer, IConsumer<TKey, TValue> client, List<TopicPartition> partitions) =>
        OnAssigned(client.Committed, partitions);

    void IConsumerProbe.Revoked(string consumer, List<TopicPartitionOffset> partitions) => OnRevoked(partitions);

    void IConsumerProbe.Delivered(string consumer, TopicPartitionOffset record)
    {
        Volatile.Write(ref _lastDelivery, Environment.TickCount64);
        Throttle(Log.Delivered(Name, record));
    }

    void IConsumerProbe.MovedBack(string consumer, TopicPartitionOffset record, bool schemaUnavailable)
    {
        (schemaUnavailable ? SchemaUnavailable : DeadLetterFailures).Enqueue(record);
        Log.SeekBack(Name, record);
    }

    void IConsumerProbe.DeadLettered(string consumer, TopicPartitionOffset record) => DeadLettered.Enqueue(record);

    void IConsumerProbe.Stored(string consumer, TopicPartitionOffset record)
    {
        // Deliveries and commits explain every re-read here; the order of stores is pinned by HostedConsumerParallelTests.
    }

    void IConsumerProbe.Committed(string consumer, CommittedOffsets offsets) => OnCommitted(offsets);

    void IConsumerProbe.ClientError(string consumer, Error error) => OnError(error);
}
