using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Batching;
using KafkaProtobuf.Hosting.Conclusion;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Health;
using KafkaProtobuf.Hosting.Intake;
using KafkaProtobuf.Hosting.Loops;
using KafkaProtobuf.Hosting.Retrying;
using KafkaProtobuf.Hosting.Scheduling;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace KafkaProtobuf.Hosting.Service;

/// <summary>
/// The recommended consume loop, run by the host: its life (start, the loop thread, shutdown, failure and exit code) and
/// its composition. It puts together the consume step (<see cref="ConsumeStep{TKey, TValue}"/>, the one holder of the
/// Kafka consumer), the conclusion (<see cref="RecordConclusion{TKey, TValue}"/>) and the loop the options choose
/// (<see cref="IConsumeLoop"/>: sequential, scheduled with an intake of records or batches, or batches across
/// partitions), then runs the loop on a thread of its own, which alone touches the consumer. Shutdown stops taking
/// records, lets the records in hand finish (cancelled when the host's shutdown timeout runs out), then closes the
/// consumer, which commits and leaves the group.
/// </summary>
internal sealed class KafkaProtobufConsumerService<TKey, TValue> : IHostedService, IConsumeStepOwner, IDisposable
{
    private static readonly TimeSpan CloseGrace = LoopParts<TKey, TValue>.CloseGrace;

    private readonly ConsumerRegistration<TKey, TValue> _registration;
    private readonly IServiceProvider _services;
    private readonly ILogger _logger;
    private readonly ConsumerStatus _status;
    private readonly CancellationTokenSource _stopTaking = new();
    private readonly CancellationTokenSource _abortHandler = new();
    private readonly TaskCompletionSource<bool> _loopEnded = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly IConsumerProbe? _probe;
    private readonly HandlerEvents _handlerEvents;
    private KafkaProtobufConsumerOptions _options = null!;
    private ConsumeStep<TKey, TValue>? _step;
    private IProducer<byte[], byte[]>? _copies; // writes dead letters and retry topics' copies
    private RecordConclusion<TKey, TValue>? _conclusion;
    private LoopParts<TKey, TValue>? _parts;
    private IConsumeLoop? _loop;
    private Thread? _thread;

    public KafkaProtobufConsumerService(ConsumerRegistration<TKey, TValue> registration, IServiceProvider services)
    {
        _registration = registration;
        _services = services;
        _logger = services.GetService<ILoggerFactory>()?.CreateLogger("KafkaProtobuf.Hosting.Consumer." + registration.Name) ?? NullLogger.Instance;
        _status = services.GetRequiredService<KafkaProtobufConsumerStates>().For(registration.Name);
        _probe = services.GetService<IConsumerProbe>();
        _handlerEvents = new HandlerEvents(registration.Name, _logger);
    }

    internal string Name => _registration.Name;

    /// <summary>For tests' diagnostics: whether the loop thread is running, waiting or gone.</summary>
    internal System.Threading.ThreadState? LoopThreadState => _thread?.ThreadState;

    /// <summary>For tests: whether shutdown has begun (no record or batch starts its handler any more).</summary>
    internal bool Stopping => _stopTaking.IsCancellationRequested;

    /// <summary>The most kept records have counted at once against <see cref="KafkaProtobufConsumerOptions.MaxReadAheadBytes"/>.</summary>
    internal long MostHeldBytes => _loop?.MostHeldBytes ?? 0;

    /// <summary>The options the consumer starts with: configuration, then code, validated.</summary>
    internal KafkaProtobufConsumerOptions CreateOptions() => _registration.CreateOptions(_services);

    public Task StartAsync(CancellationToken cancellationToken)
    {
        _options = CreateOptions();
        var tracing = new ConsumerTracing(Name, _options.Consumer.GroupId);
        _handlerEvents.UseMessagingConventions(_options.MessagingConventionMetrics, _options.Consumer.GroupId);
        _step = new ConsumeStep<TKey, TValue>(
            Name,
            _options.ConsumerConfigForLoop(),
            _registration.KeyDeserializer?.Invoke(_services) ?? BuiltInDeserializers.For<TKey>("key"),
            _registration.ValueDeserializer?.Invoke(_services) ?? BuiltInDeserializers.For<TValue>("value"),
            this,
            _status,
            _logger,
            _probe,
            _options.ReadAgainDelay);
        RetryTiers? retries = _options.RetryTopics.Delays.Count > 0 ? new RetryTiers(_options.RetryTopics, _options.SubscribedTopics()) : null;
        if (_options.DeadLetterTopic is not null || retries is not null)
        {
            _copies = new ProducerBuilder<byte[], byte[]>(_options.CopyProducerConfig()).Build();
        }

        _conclusion = new RecordConclusion<TKey, TValue>(
            _step,
            _copies,
            _options.DeadLetterTopic,
            _options.CopyTimeout,
            _options.ReadAgainDelay,
            retries,
            _status,
            new ConclusionEvents(Name, _logger, _probe),
            tracing,
            Fail);
        _parts = new LoopParts<TKey, TValue>(Name, _step, _conclusion, tracing, retries, _probe, _options.ReadAgainDelay, _stopTaking.Token, _abortHandler.Token);
        _loop = NewLoop(_parts);

        _step.Subscribe(_options.SubscribedTopics());
        _status.LagDegradedThreshold = _options.LagDegradedThreshold;
        _status.LagUnhealthyThreshold = _options.LagUnhealthyThreshold;
        ConsumerMetrics.Observe(_status.Lag);
        _status.Running();
        ConsumerLog.Started(_logger, Name, _options.Topics);
        _thread = new Thread(Run) { IsBackground = true, Name = "KafkaProtobuf consumer " + Name };
        _thread.Start();
        return Task.CompletedTask;
    }

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        if (_thread is null)
        {
            return;
        }

        _stopTaking.Cancel();
        var timedOut = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        using (cancellationToken.Register(() => timedOut.TrySetResult(true)))
        {
            if (await Task.WhenAny(_loopEnded.Task, timedOut.Task).ConfigureAwait(false) == _loopEnded.Task)
            {
                return;
            }
        }

        // The host's shutdown timeout ran out with a handler still running: cancel it, and give the loop a moment to close.
        _abortHandler.Cancel();
        await Task.WhenAny(_loopEnded.Task, Task.Delay(CloseGrace, CancellationToken.None)).ConfigureAwait(false);
    }

    /// <summary>
    /// What a killed process leaves behind, for tests: the loop ends without closing the consumer (no commit, no
    /// LeaveGroup; the group notices when the session times out) and the client is destroyed.
    /// </summary>
    internal void Abandon()
    {
        if (_parts is not null)
        {
            _parts.Abandoned = true;
        }

        _stopTaking.Cancel();
        _abortHandler.Cancel();
        if (_thread is not null && !_thread.Join(CloseGrace))
        {
            throw new InvalidOperationException("The loop of " + Name + " did not end.");
        }
    }

    public void Dispose()
    {
        if (_thread is { IsAlive: true })
        {
            _stopTaking.Cancel();
            _abortHandler.Cancel();
            if (!_thread.Join(CloseGrace))
            {
                // A handler that ignores its token still holds the loop: freeing the client under it could crash the
                // process, so leave it to the process's exit.
                ConsumerLog.Failed(_logger, Name, "the loop did not end after its handler was cancelled; the consumer is left open", null);
                return;
            }
        }

        _step?.Dispose();
        _copies?.Dispose();
        _stopTaking.Dispose();
        _abortHandler.Dispose();
    }

    private void Run()
    {
        try
        {
            _loop!.Run();
        }
        catch (Exception e)
        {
            Fail("the consume loop failed: " + BoundedText.Describe(e), e);
        }
        finally
        {
            if (_parts!.Abandoned)
            {
                _step!.Dispose(); // no Close: no commit, no LeaveGroup
                _status.Stopped();
            }
            else
            {
                Close();
            }

            _loopEnded.TrySetResult(true);
        }
    }

    /// <summary>The loop the options choose, with its handler.</summary>
    private IConsumeLoop NewLoop(LoopParts<TKey, TValue> parts)
    {
        bool perKey = _options.HandlingOrder == HandlingOrder.Key;
        SchedulerSettings scheduling = SchedulerSettings.Of(_options.MaxConcurrentHandlers, perKey, _options.MaxReadAheadBytes, _options.ReadAgainDelay, _options.RevokeTimeout);
        if (_registration.BatchHandler is { } batchHandler)
        {
            var runner = new BatchRunner<TKey, TValue>(
                NewHandlerRunner(batchHandler, BatchRunner<TKey, TValue>.Describe, static records => records.Count, BatchRunner<TKey, TValue>.PartitionOf), _options.Batches.WhenBatchFails, _handlerEvents);
            var collector = new BatchCollector<TKey, TValue>(_options.Batches);
            return _options.Batches.AcrossPartitions
                ? new BatchAcrossPartitionsLoop<TKey, TValue>(parts, runner, collector)
                : new ScheduledLoop<TKey, TValue, RecordBatch<TKey, TValue>>(parts, new BatchIntake<TKey, TValue>(parts.Step, parts.Conclusion, runner, collector, parts.Tracing, parts.Retries), scheduling);
        }

        HandlerRunner<ConsumeResult<TKey, TValue>> handler = NewHandlerRunner(
            _registration.Handler!, static record => PositionText.Of(record.Topic, record.Partition, record.Offset), null, static record => record.TopicPartition);

        // Retry topics' records wait for their due time by pausing their partition: the scheduler's (with one slot, records are still handled one at a time).
        return _options.MaxConcurrentHandlers > 1 || parts.Retries is not null || _options.ScheduleOneAtATime
            ? new ScheduledLoop<TKey, TValue, ParallelRecord<TKey, TValue>>(
                parts, new RecordIntake<TKey, TValue>(parts.Step, parts.Conclusion, handler, parts.Tracing, parts.Retries, perKey), scheduling)
            : new SequentialLoop<TKey, TValue>(parts, handler);
    }

    private HandlerRunner<THandled> NewHandlerRunner<THandled>(Func<IServiceProvider, THandled, CancellationToken, Task> handler, Func<THandled, string> describe, Func<THandled, int>? count, Func<THandled, TopicPartition?> partitionOf)
        where THandled : class =>
        new(handler, _registration.HandlerNeedsScope, _services, describe, count, partitionOf, _options.HandlerFailures, _status, _handlerEvents, _stopTaking.Token, _abortHandler.Token);

    void IConsumeStepOwner.Revoked(IReadOnlyList<TopicPartition> partitions)
    {
        if (_loop?.Revoke(partitions) == false)
        {
            _stopTaking.Cancel();
        }

        _status.Revoked(partitions);
        _conclusion?.Unwritten.Forget(partitions);
    }

    void IConsumeStepOwner.Failed(string reason, Exception? exception, bool outsideConsume)
    {
        Fail(reason, exception);
        if (outsideConsume)
        {
            _stopTaking.Cancel(); // the consume returning Failed ends the loop otherwise
        }
    }

    /// <summary>
    /// The consumer stops for good: the health check reports why, and unless told otherwise the application stops
    /// with a non-zero exit code, so that its orchestrator restarts it.
    /// </summary>
    private void Fail(string reason, Exception? exception)
    {
        if (_status.State == KafkaProtobufConsumerState.Failed)
        {
            return;
        }

        _status.Failed(reason);
        ConsumerLog.Failed(_logger, Name, reason, exception);
        if (_options.StopApplicationOnFailure)
        {
            if (_options.FailureExitCode != 0 && Environment.ExitCode == 0)
            {
                Environment.ExitCode = _options.FailureExitCode;
            }

            _services.GetService<IHostApplicationLifetime>()?.StopApplication();
        }
    }

    private void Close()
    {
        try
        {
            _step!.Close(); // commits the stored offsets and leaves the group
            _copies?.Flush(TimeSpan.FromSeconds(5));
            _status.Stopped();
            ConsumerLog.Stopped(_logger, Name);
        }
        catch (Exception e) when (e is KafkaException or ObjectDisposedException or InvalidOperationException)
        {
            _status.Stopped();
            ConsumerLog.CloseFailed(_logger, Name, e);
        }
    }
}
