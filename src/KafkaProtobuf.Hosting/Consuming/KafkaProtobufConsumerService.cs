using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Health;
using KafkaProtobuf.Hosting.Retrying;
using KafkaProtobuf.Hosting.Scheduling;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace KafkaProtobuf.Hosting.Consuming;

/// <summary>
/// The recommended consume loop, run by the host. This file: its life (start, the loop thread, shutdown, failure) and
/// the client's callbacks. The consume step and what follows a record's handler (<c>.Conclusion.cs</c>) serve both
/// loops: sequential (<c>.Sequential.cs</c>: one record at a time, on the loop thread) and partition-parallel
/// (<c>.Parallel.cs</c>, scheduled by <see cref="PartitionScheduler{TRecord}"/>); a batch handler's batches are made and
/// run by the same two (<c>.Batches.cs</c>). Only the loop thread touches the
/// consumer. Shutdown stops taking records, lets the records in hand finish (cancelled when the host's shutdown timeout
/// runs out), then closes the consumer, which commits and leaves the group.
/// </summary>
internal sealed partial class KafkaProtobufConsumerService<TKey, TValue> : IHostedService, IDisposable
{
    // After the host's shutdown timeout cancels the handlers: how long the loop may still take to close the consumer.
    private static readonly TimeSpan CloseGrace = TimeSpan.FromSeconds(10);

    // How long a write that failed waits for the brokers to say whether its topic exists.
    private static readonly TimeSpan TopicCheckTimeout = TimeSpan.FromSeconds(5);

    private readonly ConsumerRegistration<TKey, TValue> _registration;
    private readonly IServiceProvider _services;
    private readonly ILogger _logger;
    private readonly ConsumerStatus _status;
    private readonly KeyValuePair<string, object?> _tag;
    private readonly CancellationTokenSource _stopTaking = new();
    private readonly CancellationTokenSource _abortHandler = new();
    private readonly TaskCompletionSource<bool> _loopEnded = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly IConsumerProbe? _probe;
    private readonly UnwrittenFailures _unwritten = new(); // records read again to write their dead letter, not to handle them again
    private ConsumerTracing _tracing = null!;
    private KafkaProtobufConsumerOptions _options = null!;
    private HandlerRunner<ConsumeResult<TKey, TValue>> _handler = null!;
    private IConsumer<TKey, TValue>? _consumer;
    private IProducer<byte[], byte[]>? _deadLetters; // writes dead letters and retry topics' copies
    private IAdminClient? _metadata; // on the consumer's connection: whether a topic written to exists
    private RetryTiers? _retries;
    private RawBytesCapture<TKey> _keys = null!;
    private RawBytesCapture<TValue> _values = null!;
    private Thread? _thread;
    private volatile bool _abandoned;

    public KafkaProtobufConsumerService(ConsumerRegistration<TKey, TValue> registration, IServiceProvider services)
    {
        _registration = registration;
        _services = services;
        _logger = services.GetService<ILoggerFactory>()?.CreateLogger("KafkaProtobuf.Hosting.Consumer." + registration.Name) ?? NullLogger.Instance;
        _status = services.GetRequiredService<KafkaProtobufConsumerStates>().For(registration.Name);
        _tag = new KeyValuePair<string, object?>(KafkaProtobufConsumerMetrics.ConsumerTag, registration.Name);
        _probe = services.GetService<IConsumerProbe>();
    }

    internal string Name => _registration.Name;

    /// <summary>For tests' diagnostics: whether the loop thread is running, waiting or gone.</summary>
    internal System.Threading.ThreadState? LoopThreadState => _thread?.ThreadState;

    /// <summary>For tests: whether shutdown has begun (no record or batch starts its handler any more).</summary>
    internal bool Stopping => _stopTaking.IsCancellationRequested;

    /// <summary>The options the consumer starts with: configuration, then code, validated.</summary>
    internal KafkaProtobufConsumerOptions CreateOptions() => _registration.CreateOptions(_services);

    public Task StartAsync(CancellationToken cancellationToken)
    {
        _options = CreateOptions();
        _tracing = new ConsumerTracing(Name, _options.Consumer.GroupId);
        if (_registration.Handler is { } handler)
        {
            _handler = new HandlerRunner<ConsumeResult<TKey, TValue>>(
                Name, handler, _registration.HandlerNeedsScope, _services, static record => PositionText.Of(record.Topic, record.Partition, record.Offset), null,
                _options.HandlerFailures, _status, _logger, _stopTaking.Token, _abortHandler.Token);
        }
        else
        {
            StartBatches(_registration.BatchHandler!);
        }

        _keys = new RawBytesCapture<TKey>(_registration.KeyDeserializer?.Invoke(_services) ?? BuiltInDeserializers.For<TKey>("key"));
        _values = new RawBytesCapture<TValue>(_registration.ValueDeserializer?.Invoke(_services) ?? BuiltInDeserializers.For<TValue>("value"));
        _consumer = new ConsumerBuilder<TKey, TValue>(_options.ConsumerConfigForLoop())
            .SetKeyDeserializer(_keys)
            .SetValueDeserializer(_values)
            .SetErrorHandler((_, error) => OnClientError(error))
            .SetPartitionsAssignedHandler(OnAssigned)
            .SetPartitionsRevokedHandler((_, partitions) => OnRevoked(partitions, lost: false))
            .SetPartitionsLostHandler((_, partitions) => OnRevoked(partitions, lost: true))
            .SetOffsetsCommittedHandler((_, committed) => OnCommitted(committed))
            .SetLogHandler((_, message) => OnClientLog(message)) // librdkafka's own lines, through ILogger instead of stderr
            .Build();
        if (_options.RetryTopics.Delays.Count > 0)
        {
            _retries = new RetryTiers(_options.RetryTopics, _options.SubscribedTopics());
        }

        if (_options.DeadLetterTopic is not null || _retries is not null)
        {
            _deadLetters = new ProducerBuilder<byte[], byte[]>(_options.DeadLetterProducerConfig()).Build();
        }

        _consumer.Subscribe(_options.SubscribedTopics());
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
        _abandoned = true;
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

        _metadata?.Dispose();
        _consumer?.Dispose();
        _deadLetters?.Dispose();
        _stopTaking.Dispose();
        _abortHandler.Dispose();
    }

    private void Run()
    {
        try
        {
            if (_registration.BatchHandler is not null)
            {
                RunBatches();
            }
            else if (_options.MaxConcurrentRecords > 1 || _retries is not null)
            {
                // Retry topics' records wait for their due time by pausing their partition: the scheduler's (with one slot, records are still handled one at a time).
                RunPartitionParallel();
            }
            else
            {
                RunSequential();
            }
        }
        catch (Exception e)
        {
            Fail("the consume loop failed: " + BoundedText.Describe(e), e);
        }
        finally
        {
            if (_abandoned)
            {
                _metadata?.Dispose(); // it uses the consumer's handle
                _consumer!.Dispose(); // Confluent.Kafka destroys the handle without closing: no commit, no LeaveGroup
                _status.Stopped();
            }
            else
            {
                Close();
            }

            _loopEnded.TrySetResult(true);
        }
    }

    /// <summary>
    /// The consume step of both loops: consumes once (until a record comes or shutdown, or for <paramref name="timeout"/>)
    /// and sorts what came: a record; a poison record or one whose writer's schema is unavailable
    /// (<paramref name="unread"/>; the latter logged and the health degraded); nothing (a passing broker error, logged);
    /// or the end.
    /// </summary>
    private Consumed Consume(TimeSpan? timeout, out ConsumeResult<TKey, TValue>? record, out ConsumeException? unread)
    {
        record = null;
        unread = null;
        try
        {
            record = timeout is { } wait ? _consumer!.Consume(wait) : _consumer!.Consume(_stopTaking.Token);
        }
        catch (OperationCanceledException) when (_stopTaking.IsCancellationRequested)
        {
            return Consumed.Stopping;
        }
        catch (ConsumeException e) when (e.IsDeserializationFailure())
        {
            unread = e;
            _probe?.Delivered(Name, e.ConsumerRecord.TopicPartitionOffset);
            return Consumed.Poison;
        }
        catch (ConsumeException e) when (e.IsSchemaUnavailable() && e.InnerException is SchemaUnavailableException { IsAccessDenied: true } denied)
        {
            // Waiting cannot fix credentials: stop loudly (nothing past the record is stored) rather than retry for ever.
            unread = e;
            Fail(PositionText.Of(e.ConsumerRecord.TopicPartitionOffset) + ": the schema source refused this application's credentials (" + BoundedText.Cut(denied.InnerException!.Message) + ")", denied);
            return Consumed.Failed;
        }
        catch (ConsumeException e) when (e.IsSchemaUnavailable())
        {
            unread = e;
            _probe?.Delivered(Name, e.ConsumerRecord.TopicPartitionOffset);
            Exception why = e.InnerException?.InnerException ?? e.InnerException ?? e; // the source's own failure
            _status.Waits(e.ConsumerRecord.TopicPartition, "obtain a writer's schema", BoundedText.Cut(why.Message, 300));
            ConsumerLog.SchemaUnavailable(_logger, Name, PositionText.Of(e.ConsumerRecord.TopicPartitionOffset), _options.ReadAgainDelay, e.InnerException ?? e);
            return Consumed.SchemaUnavailable;
        }
        catch (ConsumeException e) when (e.IsRecoverableConsumerError())
        {
            ConsumerLog.ConsumerError(_logger, Name, e.Error.ToString());
            return Consumed.Nothing;
        }
        catch (KafkaException e)
        {
            Fail("the consumer failed: " + e.Error, e);
            return Consumed.Failed;
        }

        if (record is null || record.IsPartitionEOF)
        {
            return Consumed.Nothing;
        }

        _probe?.Delivered(Name, record.TopicPartitionOffset);
        return Consumed.Record;
    }

    private void OnAssigned(IConsumer<TKey, TValue> client, List<TopicPartition> partitions)
    {
        // Returning nothing: librdkafka starts each partition at the group's committed offset.
        ConsumerLog.Assigned(_logger, Name, new PartitionList(partitions));
        _probe?.Assigned(Name, client, partitions);
    }

    private void OnRevoked(List<TopicPartitionOffset> partitions, bool lost)
    {
        ConsumerLog.Revoked(_logger, Name, lost ? "lost" : "revoked", new PartitionList(partitions.Select(p => p.TopicPartition)));
        if (!RevokeScheduled(partitions.Select(p => p.TopicPartition)))
        {
            _stopTaking.Cancel();
        }

        RevokeCollected(partitions.Select(p => p.TopicPartition));
        _status.Released(partitions.Select(p => p.TopicPartition));
        _unwritten.Release(partitions.Select(p => p.TopicPartition));

        _probe?.Revoked(Name, partitions);
    }

    private void OnCommitted(CommittedOffsets committed)
    {
        // Auto-commit retries with the offsets stored then; a failure only means records may be read again.
        Error error = committed.Error.IsError ? committed.Error : committed.Offsets.FirstOrDefault(o => o.Error.IsError)?.Error ?? committed.Error;
        if (error.IsError)
        {
            ConsumerLog.CommitFailed(_logger, Name, error.ToString());
        }

        _probe?.Committed(Name, committed);
    }

    private void OnClientError(Error error)
    {
        _probe?.ClientError(Name, error);
        if (error.IsFatal)
        {
            Fail("librdkafka reported a fatal error: " + error, null);
            _stopTaking.Cancel();
        }
        else if (_logger.IsEnabled(LogLevel.Warning))
        {
            ConsumerLog.ClientError(_logger, Name, error.ToString());
        }
    }

    private void OnClientLog(LogMessage message)
    {
        LogLevel level = message.Level switch
        {
            SyslogLevel.Emergency or SyslogLevel.Alert or SyslogLevel.Critical => LogLevel.Critical,
            SyslogLevel.Error => LogLevel.Error,
            SyslogLevel.Warning => LogLevel.Warning,
            SyslogLevel.Notice or SyslogLevel.Info => LogLevel.Information,
            _ => LogLevel.Debug,
        };
        ConsumerLog.Librdkafka(_logger, level, Name, message.Facility, message.Message);
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
            _consumer!.Close(); // commits the stored offsets and leaves the group
            _deadLetters?.Flush(TimeSpan.FromSeconds(5));
            _status.Stopped();
            ConsumerLog.Stopped(_logger, Name);
        }
        catch (Exception e) when (e is KafkaException or ObjectDisposedException or InvalidOperationException)
        {
            _status.Stopped();
            ConsumerLog.CloseFailed(_logger, Name, e);
        }
    }

    /// <summary>Waits, unless shutdown comes first. False when it did.</summary>
    private bool SleepUnlessStopping(TimeSpan delay) => !_stopTaking.Token.WaitHandle.WaitOne(delay);
}
