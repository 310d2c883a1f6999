using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// Runs a hosted consumer's handler on a record, retrying failures in place as <see cref="HandlerFailureOptions"/> says
/// (the wait ends early at shutdown), and says what became of the record. Touches no consumer state: the loop concludes.
/// Safe on any thread.
/// </summary>
internal sealed class HandlerRunner<TKey, TValue>
{
    private readonly ConsumerRegistration<TKey, TValue> _registration;
    private readonly IServiceProvider _services;
    private readonly HandlerFailureOptions _failures;
    private readonly ExponentialBackoff _backoff;
    private readonly ConsumerStatus _status;
    private readonly ILogger _logger;
    private readonly KeyValuePair<string, object?> _tag;
    private readonly CancellationToken _stopping;
    private readonly CancellationToken _abort;

    /// <param name="registration">The handler.</param>
    /// <param name="services">The application's services (a scope per record when the handler needs one).</param>
    /// <param name="failures">The retry policy.</param>
    /// <param name="status">Counts failures for the health check.</param>
    /// <param name="logger">The consumer's logger.</param>
    /// <param name="stopping">Cancelled at shutdown: a retry's wait ends, and the record is not concluded.</param>
    /// <param name="abort">Cancelled when the host's shutdown timeout runs out: given to the handler.</param>
    public HandlerRunner(
        ConsumerRegistration<TKey, TValue> registration, IServiceProvider services, HandlerFailureOptions failures, ConsumerStatus status, ILogger logger, CancellationToken stopping, CancellationToken abort)
    {
        _registration = registration;
        _services = services;
        _failures = failures;
        _backoff = new ExponentialBackoff(failures.RetryBackoff, failures.MaxRetryBackoff, failures.Jitter);
        _status = status;
        _logger = logger;
        _tag = new KeyValuePair<string, object?>(KafkaProtobufConsumerMetrics.ConsumerTag, registration.Name);
        _stopping = stopping;
        _abort = abort;
    }

    /// <summary>Runs the handler until it completes or fails for good. One that completes at once costs a call: no async state machine.</summary>
    public ValueTask<HandlerResult> RunAsync(ConsumeResult<TKey, TValue> record, Activity? activity)
    {
        long started = KafkaProtobufConsumerMetrics.HandlerStarting();
        Task first;
        try
        {
            first = Invoke(record);
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

    /// <summary>The first attempt still running or failed: await it, and retry as the policy says.</summary>
    private async ValueTask<HandlerResult> RunWithRetriesAsync(ConsumeResult<TKey, TValue> record, Activity? activity, Task first, long firstStarted)
    {
        for (int attempt = 1; ; attempt++)
        {
            long started = attempt == 1 ? firstStarted : KafkaProtobufConsumerMetrics.HandlerStarting();
            try
            {
                Task handling = attempt == 1 ? first : Invoke(record);
                if (!handling.IsCompleted)
                {
                    await handling.ConfigureAwait(false);
                }

                handling.GetAwaiter().GetResult(); // a synchronous failure throws here
                KafkaProtobufConsumerMetrics.HandlerRan(_tag, started, completed: true);
                return default;
            }
            catch (OperationCanceledException e) when (_abort.IsCancellationRequested)
            {
                KafkaProtobufConsumerMetrics.HandlerRan(_tag, started, completed: false);
                ConsumerTracing.Failed(activity, e);
                ConsumerLog.HandlerCancelled(_logger, _registration.Name, PositionText.Of(record.Topic, record.Partition, record.Offset));
                return new HandlerResult(HandlerOutcome.Cancelled, e);
            }
            catch (Exception e)
            {
                KafkaProtobufConsumerMetrics.HandlerRan(_tag, started, completed: false);
                _status.HandlerFailed(attempt);
                HandlerFailureAction action = _failures.Classify?.Invoke(e) ?? HandlerFailureAction.Retry;
                if (action == HandlerFailureAction.Retry && attempt >= _failures.MaxAttempts)
                {
                    action = _failures.WhenAttemptsRunOut;
                }

                if (action != HandlerFailureAction.Retry)
                {
                    ConsumerTracing.Failed(activity, e);
                    return new HandlerResult(action == HandlerFailureAction.DeadLetter ? HandlerOutcome.DeadLetter : HandlerOutcome.Stop, e);
                }

                TimeSpan delay = _backoff.Delay(attempt);
                KafkaProtobufConsumerMetrics.Retried(_tag);
                ConsumerTracing.Retrying(activity, e, attempt, delay);
                ConsumerLog.HandlerRetrying(_logger, _registration.Name, PositionText.Of(record.Topic, record.Partition, record.Offset), attempt, _failures.MaxAttempts, delay, e);
                try
                {
                    await Task.Delay(delay, _stopping).ConfigureAwait(false);
                }
                catch (OperationCanceledException)
                {
                    return new HandlerResult(HandlerOutcome.Cancelled, e); // shutting down: not committed, so read again
                }
            }
        }
    }

    private Task Invoke(ConsumeResult<TKey, TValue> record)
    {
        Func<IServiceProvider, ConsumeResult<TKey, TValue>, CancellationToken, Task> handler = _registration.Handler!;
        return _registration.HandlerNeedsScope ? InvokeScoped(handler, record) : handler(_services, record, _abort);
    }

    private async Task InvokeScoped(Func<IServiceProvider, ConsumeResult<TKey, TValue>, CancellationToken, Task> handler, ConsumeResult<TKey, TValue> record)
    {
        using IServiceScope scope = _services.CreateScope();
        await handler(scope.ServiceProvider, record, _abort).ConfigureAwait(false);
    }
}
