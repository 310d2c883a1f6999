using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// The recommended consume loop, run by the host: on its own thread, it consumes, hands each record to the handler and
/// stores its offset once the handler returned (auto-commit sends the stored offsets), dead-letters what cannot be
/// deserialized or handled, reads again what met an unavailable schema or a failed dead letter, and stops the
/// application on what it cannot get past. Shutdown stops taking records, lets the record in hand finish (cancelled
/// when the host's shutdown timeout runs out), then closes the consumer, which commits and leaves the group.
/// </summary>
internal sealed partial class KafkaProtobufConsumerService<TKey, TValue> : IHostedService, IDisposable
{
    // After the host's shutdown timeout cancels the handler: how long the loop may still take to close the consumer.
    private static readonly TimeSpan CloseGrace = TimeSpan.FromSeconds(10);

    private readonly ConsumerRegistration<TKey, TValue> _registration;
    private readonly IServiceProvider _services;
    private readonly ILogger _logger;
    private readonly ConsumerStatus _status;
    private readonly KeyValuePair<string, object?> _tag;
    private readonly CancellationTokenSource _stopTaking = new();
    private readonly CancellationTokenSource _abortHandler = new();
    private readonly TaskCompletionSource<bool> _loopEnded = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly IConsumerProbe? _probe;
    private ConsumerTracing _tracing = null!;
    private KafkaProtobufConsumerOptions _options = null!;
    private IConsumer<TKey, TValue>? _consumer;
    private IProducer<byte[], byte[]>? _deadLetters;
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

    /// <summary>The options the consumer starts with: configuration, then code, validated.</summary>
    internal KafkaProtobufConsumerOptions CreateOptions() => _registration.CreateOptions(_services);

    public Task StartAsync(CancellationToken cancellationToken)
    {
        _options = CreateOptions();
        _tracing = new ConsumerTracing(Name, _options.Consumer.GroupId);
        _keys = new RawBytesCapture<TKey>(_registration.KeyDeserializer?.Invoke(_services) ?? BuiltInDeserializer<TKey>("key"));
        _values = new RawBytesCapture<TValue>(_registration.ValueDeserializer?.Invoke(_services) ?? BuiltInDeserializer<TValue>("value"));
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
        if (_options.DeadLetterTopic is not null)
        {
            _deadLetters = new ProducerBuilder<byte[], byte[]>(_options.DeadLetterProducerConfig()).Build();
        }

        _consumer.Subscribe(_options.Topics);
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

        _consumer?.Dispose();
        _deadLetters?.Dispose();
        _stopTaking.Dispose();
        _abortHandler.Dispose();
    }

    private void Run()
    {
        try
        {
            if (_options.MaxConcurrentRecords > 1)
            {
                RunPartitionParallel();
                return;
            }

            while (!_stopTaking.IsCancellationRequested)
            {
                Taken taken = Take(null, out ConsumeResult<TKey, TValue>? result, out ConsumeException? unread);
                if (taken is Taken.Stopping or Taken.Failed)
                {
                    break;
                }

                if (taken == Taken.Poison)
                {
                    using Activity? activity = _tracing.StartPoison(unread!);
                    if (!Then(DeadLetterPoison(unread!, activity)))
                    {
                        break;
                    }
                }
                else if (taken == Taken.SchemaUnavailable)
                {
                    // Not bad data: nothing is committed past it; go back to it and read it again after a pause.
                    _consumer!.Seek(unread!.ConsumerRecord.TopicPartitionOffset);
                    _probe?.MovedBack(Name, unread.ConsumerRecord.TopicPartitionOffset, schemaUnavailable: true);
                    Pause(_options.BackOff);
                }
                else if (taken == Taken.Record)
                {
                    using Activity? activity = _tracing.Start(result!);
                    if (!Then(Handle(result!, activity)))
                    {
                        break;
                    }
                }
            }
        }
        catch (Exception e)
        {
            Fail("the consume loop failed: " + e.Message, e);
        }
        finally
        {
            if (_abandoned)
            {
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
    /// Consumes once (until a record comes or shutdown, or for <paramref name="timeout"/>) and sorts what came, for
    /// both loops: a record; a poison record or one whose writer's schema is unavailable (<paramref name="unread"/>;
    /// the latter logged and the health degraded); nothing (a passing broker error, logged); or the end.
    /// </summary>
    private Taken Take(TimeSpan? timeout, out ConsumeResult<TKey, TValue>? record, out ConsumeException? unread)
    {
        record = null;
        unread = null;
        try
        {
            record = timeout is { } wait ? _consumer!.Consume(wait) : _consumer!.Consume(_stopTaking.Token);
        }
        catch (OperationCanceledException) when (_stopTaking.IsCancellationRequested)
        {
            return Taken.Stopping;
        }
        catch (ConsumeException e) when (e.IsDeserializationFailure())
        {
            unread = e;
            _probe?.Delivered(Name, e.ConsumerRecord.TopicPartitionOffset);
            return Taken.Poison;
        }
        catch (ConsumeException e) when (e.IsSchemaUnavailable())
        {
            unread = e;
            _probe?.Delivered(Name, e.ConsumerRecord.TopicPartitionOffset);
            _status.SchemaWasUnavailable();
            ConsumerLog.SchemaUnavailable(_logger, Name, Describe(e.ConsumerRecord.TopicPartitionOffset), _options.BackOff, e.InnerException ?? e);
            return Taken.SchemaUnavailable;
        }
        catch (ConsumeException e) when (e.IsRecoverableConsumerError())
        {
            ConsumerLog.ConsumerError(_logger, Name, e.Error.ToString());
            return Taken.Nothing;
        }
        catch (KafkaException e)
        {
            Fail("the consumer failed: " + e.Error, e);
            return Taken.Failed;
        }

        if (record is null || record.IsPartitionEOF)
        {
            return Taken.Nothing;
        }

        _probe?.Delivered(Name, record.TopicPartitionOffset);
        return Taken.Record;
    }

    /// <summary>Sequential mode: after a record whose dead letter failed, pause the loop before it comes again. False: stop the loop.</summary>
    private bool Then(Next next)
    {
        if (next == Next.ReadAgain)
        {
            Pause(_options.BackOff);
        }

        return next != Next.Stop;
    }

    /// <summary>Runs the handler on a record until it completes, is dead-lettered, or the consumer stops.</summary>
    private Next Handle(ConsumeResult<TKey, TValue> record, Activity? activity)
    {
        ValueTask<HandlerResult> run = HandleAsync(record, activity);
        HandlerResult result = run.IsCompletedSuccessfully ? run.Result : run.AsTask().GetAwaiter().GetResult();
        return Conclude(record, result, activity, null);
    }

    /// <summary>
    /// Runs the handler, retrying failures in place as the policy says (the back-off ends early at shutdown), and says
    /// what became of the record. Touches no consumer state: the loop concludes (<see cref="Conclude"/>). A handler
    /// that completes at once is done without an async state machine: the common case costs a call.
    /// </summary>
    private ValueTask<HandlerResult> HandleAsync(ConsumeResult<TKey, TValue> record, Activity? activity)
    {
        long started = KafkaProtobufConsumerMetrics.HandlerStarting();
        Task first;
        try
        {
            first = RunHandler(record);
        }
        catch (Exception e)
        {
            first = Task.FromException(e);
        }

        if (first.Status == TaskStatus.RanToCompletion)
        {
            KafkaProtobufConsumerMetrics.HandlerRan(_tag, started, completed: true);
            return default;
        }

        return RunWithRetriesAsync(record, activity, first, started);
    }

    /// <summary>The handler's first attempt still running or failed: await it, and retry as the policy says.</summary>
    private async ValueTask<HandlerResult> RunWithRetriesAsync(ConsumeResult<TKey, TValue> record, Activity? activity, Task first, long firstStarted)
    {
        HandlerFailureOptions failures = _options.HandlerFailures;
        for (int attempt = 1; ; attempt++)
        {
            long started = attempt == 1 ? firstStarted : KafkaProtobufConsumerMetrics.HandlerStarting();
            try
            {
                Task handling = attempt == 1 ? first : RunHandler(record);
                if (!handling.IsCompleted)
                {
                    await handling.ConfigureAwait(false);
                }

                handling.GetAwaiter().GetResult(); // a synchronous failure throws here
                KafkaProtobufConsumerMetrics.HandlerRan(_tag, started, completed: true);
                return default;
            }
            catch (OperationCanceledException e) when (_abortHandler.IsCancellationRequested)
            {
                KafkaProtobufConsumerMetrics.HandlerRan(_tag, started, completed: false);
                ConsumerTracing.Failed(activity, e);
                ConsumerLog.HandlerCancelled(_logger, Name, Describe(record.TopicPartitionOffset));
                return new HandlerResult(HandlerOutcome.Cancelled, e);
            }
            catch (Exception e)
            {
                KafkaProtobufConsumerMetrics.HandlerRan(_tag, started, completed: false);
                _status.HandlerFailed(attempt);
                HandlerFailureAction action = failures.Classify?.Invoke(e) ?? HandlerFailureAction.Retry;
                if (action == HandlerFailureAction.Retry && attempt >= failures.MaxAttempts)
                {
                    action = failures.WhenAttemptsRunOut;
                }

                if (action != HandlerFailureAction.Retry)
                {
                    ConsumerTracing.Failed(activity, e);
                    return new HandlerResult(action == HandlerFailureAction.DeadLetter ? HandlerOutcome.DeadLetter : HandlerOutcome.Stop, e);
                }

                TimeSpan backOff = BackOff(attempt);
                KafkaProtobufConsumerMetrics.Retried(_tag);
                ConsumerTracing.Retrying(activity, e, attempt, backOff);
                ConsumerLog.HandlerRetrying(_logger, Name, Describe(record.TopicPartitionOffset), attempt, failures.MaxAttempts, backOff, e);
                try
                {
                    await Task.Delay(backOff, _stopTaking.Token).ConfigureAwait(false);
                }
                catch (OperationCanceledException)
                {
                    return new HandlerResult(HandlerOutcome.Cancelled, e); // shutting down: not committed, so read again
                }
            }
        }
    }

    /// <summary>What the loop does with a record once its handler is done with it.</summary>
    /// <param name="record">The record.</param>
    /// <param name="result">What the handler made of it.</param>
    /// <param name="activity">Its span, if traced.</param>
    /// <param name="lane">Partition-parallel: the record with its own copy of its bytes; null when the capture still holds them (the record just consumed).</param>
    private Next Conclude(ConsumeResult<TKey, TValue> record, HandlerResult result, Activity? activity, LaneItem<TKey, TValue>? lane)
    {
        switch (result.Outcome)
        {
            case HandlerOutcome.Handled:
                StoreOffset(record);
                _status.RecordDone();
                return Next.Continue;
            case HandlerOutcome.DeadLetter when _deadLetters is not null:
                ConsumeResult<byte[], byte[]> written = lane is null ? Raw(record, _keys.ToArray(), _values.ToArray()) : Raw(record, lane.Key, lane.Value);
                Exception failure = result.Failure!;
                return DeadLetter(written, () => _consumer!.DeadLetter(written, failure, _deadLetters, _options.DeadLetterTopic!, _options.DeadLetterTimeout, DeadLetterOffsetHandling.Store), handlerFailure: true, failure, activity);
            case HandlerOutcome.DeadLetter or HandlerOutcome.Stop:
                Exception e = result.Failure!;
                Fail(
                    "the handler failed on " + Describe(record.TopicPartitionOffset)
                        + (result.Outcome == HandlerOutcome.DeadLetter ? " and there is no dead-letter topic" : " and the policy is to stop")
                        + " (" + e.GetType().Name + ": " + e.Message + ")",
                    e);
                return Next.Stop;
            default:
                return Next.Stop; // cancelled at shutdown: not committed, read again
        }
    }

    private Task RunHandler(ConsumeResult<TKey, TValue> record)
    {
        Func<IServiceProvider, ConsumeResult<TKey, TValue>, CancellationToken, Task> handler = _registration.Handler!;
        return _registration.HandlerNeedsScope ? RunScoped(handler, record) : handler(_services, record, _abortHandler.Token);
    }

    private async Task RunScoped(Func<IServiceProvider, ConsumeResult<TKey, TValue>, CancellationToken, Task> handler, ConsumeResult<TKey, TValue> record)
    {
        using IServiceScope scope = _services.CreateScope();
        await handler(scope.ServiceProvider, record, _abortHandler.Token).ConfigureAwait(false);
    }

    private Next DeadLetterPoison(ConsumeException poison, Activity? activity) =>
        DeadLetter(poison.ConsumerRecord, () => _consumer!.DeadLetter(poison, _deadLetters!, _options.DeadLetterTopic!, _options.DeadLetterTimeout), handlerFailure: false, poison.InnerException ?? poison, activity);

    /// <summary>Writes a dead letter. A retriable failure: the consumer was moved back to the record, which is read again after a back-off; any other stops.</summary>
    private Next DeadLetter(ConsumeResult<byte[], byte[]> record, Func<DeadLetterResult> send, bool handlerFailure, Exception failure, Activity? activity)
    {
        string where = Describe(record.TopicPartitionOffset);
        if (_deadLetters is null)
        {
            Fail(where + " cannot be deserialized and there is no dead-letter topic (" + failure.Message + ")", failure);
            return Next.Stop;
        }

        try
        {
            send();
            ConsumerTracing.DeadLettered(activity, _options.DeadLetterTopic!, handlerFailure ? "handler" : "deserialization");
            _probe?.DeadLettered(Name, record.TopicPartitionOffset);
            KafkaProtobufConsumerMetrics.DeadLetter(_tag, handlerFailure);
            _status.RecordDone();
            ConsumerLog.DeadLettered(_logger, Name, where, _options.DeadLetterTopic!, handlerFailure ? "handler" : "deserialization", failure.GetType().Name + ": " + failure.Message);
            return Next.Continue;
        }
        catch (DeadLetterException d) when (d.IsRetriable)
        {
            // DeadLetter moved the consumer back to the record: after the back-off, Consume delivers it again.
            ConsumerLog.DeadLetterRetrying(_logger, Name, where, d.Error.ToString(), _options.BackOff);
            ConsumerTracing.DeadLetterFailed(activity, d);
            _probe?.MovedBack(Name, record.TopicPartitionOffset, schemaUnavailable: false);
            return Next.ReadAgain;
        }
        catch (DeadLetterException d)
        {
            Fail("the dead letter of " + where + " cannot be written: " + d.Error, d);
            return Next.Stop;
        }
    }

    private void StoreOffset(ConsumeResult<TKey, TValue> record)
    {
        try
        {
            _consumer!.StoreOffset(record);
            _probe?.Stored(Name, record.TopicPartitionOffset);
        }
        catch (KafkaException e)
        {
            ConsumerLog.OffsetNotStored(_logger, Name, record.TopicPartitionOffset, e.Error.Code);
        }
    }

    /// <summary>A record as it was written, for its dead letter: its key and value bytes, headers and position.</summary>
    private static ConsumeResult<byte[], byte[]> Raw(ConsumeResult<TKey, TValue> record, byte[]? key, byte[]? value) => new()
    {
        TopicPartitionOffset = record.TopicPartitionOffset,
        Message = new Message<byte[], byte[]>
        {
            Key = key!,
            Value = value!,
            Headers = record.Message.Headers,
            Timestamp = record.Message.Timestamp,
        },
    };

    private TimeSpan BackOff(int attempt)
    {
        // Exponential, capped, with full jitter above half: between half and all of min(max, initial * 2^(attempt - 1)).
        HandlerFailureOptions failures = _options.HandlerFailures;
        double ceiling = Math.Min(failures.MaxBackOff.TotalMilliseconds, failures.InitialBackOff.TotalMilliseconds * Math.Pow(2, Math.Min(attempt - 1, 30)));
#if NET6_0_OR_GREATER
        double jitter = Random.Shared.NextDouble();
#else
        double jitter = new Random().NextDouble();
#endif
        return TimeSpan.FromMilliseconds(ceiling / 2 * (1 + jitter));
    }

    /// <summary>Waits, unless shutdown comes first. False when it did.</summary>
    private bool Pause(TimeSpan delay) => !_stopTaking.Token.WaitHandle.WaitOne(delay);

    private void OnAssigned(IConsumer<TKey, TValue> client, List<TopicPartition> partitions)
    {
        // Returning nothing: librdkafka starts each partition at the group's committed offset.
        ConsumerLog.Assigned(_logger, Name, partitions);
        _probe?.Assigned(Name, client, partitions);
    }

    private void OnRevoked(List<TopicPartitionOffset> partitions, bool lost)
    {
        ConsumerLog.Revoked(_logger, Name, lost ? "lost" : "revoked", partitions);
        LetLanesGo(partitions);
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

    private static string Describe(TopicPartitionOffset position) =>
        position.Topic + " [" + position.Partition.Value.ToString(CultureInfo.InvariantCulture) + "] @" + position.Offset.Value.ToString(CultureInfo.InvariantCulture);

    private static IDeserializer<T> BuiltInDeserializer<T>(string component) => typeof(T) switch
    {
        var t when t == typeof(string) => (IDeserializer<T>)(object)Deserializers.Utf8,
        var t when t == typeof(byte[]) => (IDeserializer<T>)(object)Deserializers.ByteArray,
        var t when t == typeof(Ignore) => (IDeserializer<T>)(object)Deserializers.Ignore,
        var t when t == typeof(Null) => (IDeserializer<T>)(object)Deserializers.Null,
        var t when t == typeof(int) => (IDeserializer<T>)(object)Deserializers.Int32,
        var t when t == typeof(long) => (IDeserializer<T>)(object)Deserializers.Int64,
        var t when t == typeof(float) => (IDeserializer<T>)(object)Deserializers.Single,
        var t when t == typeof(double) => (IDeserializer<T>)(object)Deserializers.Double,
        _ => throw new InvalidOperationException(
            "The " + component + " type " + typeof(T).Name + " has no built-in deserializer: call WithProtobuf" + (component == "key" ? "Keys" : "Values")
            + " or With" + (component == "key" ? "Key" : "Value") + "Deserializer on the consumer's builder."),
    };
}
