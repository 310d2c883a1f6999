using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Hosting.Batching;
using KafkaProtobuf.Hosting.Conclusion;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Health;
using KafkaProtobuf.Hosting.Loops;
using KafkaProtobuf.Hosting.Retrying;
using KafkaProtobuf.Hosting.Scheduling;
using KafkaProtobuf.Hosting.Work;
using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.Hosting.Service;

/// <summary>
/// Puts one consumer together from its registration and options: its Kafka client, the producer of its copies (dead
/// letters, retry topics), the conclusion, and the loop the options choose with its handler: sequential, partition-
/// parallel records, one partition's batches several at once, or batches across partitions.
/// </summary>
internal sealed class ConsumerFactory<TKey, TValue>
{
    private readonly ConsumerRegistration<TKey, TValue> _registration;
    private readonly KafkaProtobufConsumerOptions _options;
    private readonly IServiceProvider _services;
    private readonly ConsumerStatus _status;
    private readonly ILogger _logger;
    private readonly HandlerEvents _handlerEvents;
    private readonly CancellationToken _stopping;
    private readonly CancellationToken _abortHandlers;

    /// <param name="registration">What the application registered.</param>
    /// <param name="options">The options, validated.</param>
    /// <param name="services">The application's services.</param>
    /// <param name="status">The consumer's health.</param>
    /// <param name="logger">The consumer's logger.</param>
    /// <param name="stopping">Cancelled when shutdown begins.</param>
    /// <param name="abortHandlers">Cancelled when the host's shutdown timeout runs out.</param>
    public ConsumerFactory(
        ConsumerRegistration<TKey, TValue> registration,
        KafkaProtobufConsumerOptions options,
        IServiceProvider services,
        ConsumerStatus status,
        ILogger logger,
        CancellationToken stopping,
        CancellationToken abortHandlers)
    {
        _registration = registration;
        _options = options;
        _services = services;
        _status = status;
        _logger = logger;
        _stopping = stopping;
        _abortHandlers = abortHandlers;
        _handlerEvents = new HandlerEvents(registration.Name, logger);
        _handlerEvents.UseMessagingConventions(options.MessagingConventionMetrics, options.Consumer.GroupId);
    }

    /// <summary>The consumer's parts; <paramref name="owner"/> hears of partitions taken away.</summary>
    public ConsumerParts<TKey, TValue> Create(IConsumerOwner owner, ConsumerDiagnostics diagnostics)
    {
        string name = _registration.Name;
        var client = new ConsumerClient<TKey, TValue>(
            name,
            _options.ConsumerConfigForLoop(),
            _registration.KeyDeserializer?.Invoke(_services) ?? BuiltInDeserializers.For<TKey>("key"),
            _registration.ValueDeserializer?.Invoke(_services) ?? BuiltInDeserializers.For<TValue>("value"),
            owner,
            _status,
            _logger,
            diagnostics,
            _options.ReadAgainDelay);
        try
        {
            var codec = new ProvenanceCodec(_options.ProvenanceKeys);
            RetryTiers? retries = _options.RetryTopics.Delays.Count > 0
                ? new RetryTiers(_options.RetryTopics, _options.SubscribedTopics(), codec)
                : null;
            IProducer<byte[], byte[]>? copies = _options.DeadLetterTopic is not null || retries is not null
                ? new ProducerBuilder<byte[], byte[]>(_options.CopyProducerConfig()).Build()
                : null;
            var tracing = new ConsumerTracing(name, _options.Consumer.GroupId);
            var conclusion = new RecordConclusion<TKey, TValue>(
                client,
                copies,
                _options.DeadLetterTopic,
                _options.EffectiveCopyTimeout(),
                _options.TopicCheckTimeout(),
                _options.ReadAgainDelay,
                retries,
                codec,
                _status,
                new ConclusionEvents(name, _logger, diagnostics),
                tracing);
            var pausing = new PartitionPausing(client, _options.MaxReadAheadBytes, TimeProvider.System, diagnostics, _status);
            var context = new LoopContext<TKey, TValue>(
                client, conclusion, tracing, retries, pausing, _options.ReadAgainDelay, _stopping, _abortHandlers, _status.Requests);
            return new ConsumerParts<TKey, TValue>(client, copies, NewLoop(context));
        }
        catch
        {
            client.Dispose();
            throw;
        }
    }

    /// <summary>The loop the options choose, with its handler.</summary>
    private IConsumeLoop NewLoop(LoopContext<TKey, TValue> context)
    {
        bool perKey = _options.HandlingOrder == HandlingOrder.Key;
        SchedulerSettings scheduling = SchedulerSettings.Of(
            _options.MaxConcurrentHandlers, perKey, _options.ReadAgainDelay, _options.RevokeTimeout);
        if (_registration.BatchHandler is { } batchHandler)
        {
            HandlerRunner<IReadOnlyList<ConsumeResult<TKey, TValue>>> runner =
                NewHandlerRunner(
                    batchHandler,
                    BatchRunner<TKey, TValue>.Describe,
                    static records => records.Count,
                    BatchRunner<TKey, TValue>.PartitionOf);
            var batches = new BatchRunner<TKey, TValue>(runner, _options.Batches.WhenBatchFails, _handlerEvents);
            var collector = new BatchCollector<TKey, TValue>(_options.Batches, context.Pausing);
            if (_options.Batches.AcrossPartitions)
            {
                return new BatchAcrossPartitionsLoop<TKey, TValue>(context, batches, collector);
            }

            var processing = new BatchProcessing<TKey, TValue>(context.Conclusion, batches, context.Tracing);
            return new ParallelBatchLoop<TKey, TValue>(
                context,
                collector,
                NewScheduler<RecordBatch<TKey, TValue>>(processing.HandleAsync, processing.Conclude, context, scheduling));
        }

        HandlerRunner<ConsumeResult<TKey, TValue>> handler = NewHandlerRunner(
            _registration.Handler!, static record => PositionText.Of(
                record.Topic, record.Partition, record.Offset), null, static record => record.TopicPartition);

        // Retry topics' records wait for their due time by pausing their partition: the scheduler's (with one slot,
        // records are still handled one at a time).
        if (_options.MaxConcurrentHandlers > 1 || context.Retries is not null)
        {
            var processing = new RecordProcessing<TKey, TValue>(context.Client, context.Conclusion, handler, context.Tracing, perKey);
            return new ParallelRecordLoop<TKey, TValue>(
                context, NewScheduler<RecordWork<TKey, TValue>>(processing.HandleAsync, processing.Conclude, context, scheduling), perKey);
        }

        return new SequentialLoop<TKey, TValue>(context, handler);
    }

    private PartitionScheduler<TWork> NewScheduler<TWork>(
        Func<TWork, ValueTask<HandlerResult>> handle,
        Func<TWork, AfterConclusion> conclude,
        LoopContext<TKey, TValue> context,
        SchedulerSettings settings)
        where TWork : ScheduledWork =>
        new(handle, conclude, context.Pausing, settings, TimeProvider.System, TaskScheduler.Default, _stopping);

    private HandlerRunner<THandled> NewHandlerRunner<THandled>(
        Func<IServiceProvider, THandled, CancellationToken, Task> handler,
        Func<THandled, string> describe,
        Func<THandled, int>? count,
        Func<THandled, TopicPartition?> partitionOf)
        where THandled : class =>
        new(
            handler,
            _registration.HandlerNeedsScope,
            _services,
            describe,
            count,
            partitionOf,
            _options.HandlerFailures,
            _status,
            _handlerEvents,
            _stopping,
            _abortHandlers);
}
