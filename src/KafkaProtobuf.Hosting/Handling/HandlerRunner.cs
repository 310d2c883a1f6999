using System;
using Confluent.Kafka;
using System.Diagnostics;
using System.Threading;
using System.Threading.Tasks;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Health;
using Microsoft.Extensions.DependencyInjection;

namespace KafkaProtobuf.Hosting.Handling;

/// <summary>
/// Runs a hosted consumer's handler on one piece of work (a record, or a batch of records), retrying failures in place
/// as <see cref="HandlerFailureOptions"/> says (the wait ends early at shutdown), and says what became of it. Touches no
/// consumer state: the loop concludes. Safe on any thread.
/// </summary>
/// <typeparam name="TWork">What the handler is given: a record, or a batch.</typeparam>
internal sealed class HandlerRunner<TWork>
    where TWork : class
{
    private readonly Func<IServiceProvider, TWork, CancellationToken, Task> _handler;
    private readonly bool _needsScope;
    private readonly IServiceProvider _services;
    private readonly Func<TWork, string> _describe;
    private readonly Func<TWork, int>? _recordsOf;
    private readonly Func<TWork, TopicPartition?> _partitionOf;
    private readonly HandlerFailureOptions _failures;
    private readonly ExponentialBackoff _backoff;
    private readonly ConsumerStatus _status;
    private readonly HandlerEvents _events;
    private readonly CancellationToken _stopping;
    private readonly CancellationToken _abort;

    /// <param name="handler">The handler: the services (a new scope's when <paramref name="needsScope"/>), the work,
    /// the abort token.</param>
    /// <param name="needsScope">Whether each run gets a service scope of its own.</param>
    /// <param name="services">The application's services.</param>
    /// <param name="describe">Where the work was read, for log lines (called only when something failed).</param>
    /// <param name="recordsOf">How many records the work holds, for the handled-records counter; null for one.</param>
    /// <param name="partitionOf">The partition the work comes from, for the messaging metrics' attributes (null: several).</param>
    /// <param name="failures">The retry policy.</param>
    /// <param name="status">Counts failures for the health check.</param>
    /// <param name="events">Where retries, cancellations and failures are written (span, metrics, log).</param>
    /// <param name="stopping">Cancelled at shutdown: a retry's wait ends, and the work is not concluded.</param>
    /// <param name="abort">Cancelled when the host's shutdown timeout runs out: given to the handler.</param>
    public HandlerRunner(
        Func<IServiceProvider, TWork, CancellationToken, Task> handler,
        bool needsScope,
        IServiceProvider services,
        Func<TWork, string> describe,
        Func<TWork, int>? recordsOf,
        Func<TWork, TopicPartition?> partitionOf,
        HandlerFailureOptions failures,
        ConsumerStatus status,
        HandlerEvents events,
        CancellationToken stopping,
        CancellationToken abort)
    {
        _handler = handler;
        _needsScope = needsScope;
        _services = services;
        _describe = describe;
        _recordsOf = recordsOf;
        _partitionOf = partitionOf;
        _failures = failures;
        _backoff = new ExponentialBackoff(failures.RetryBackoff, failures.MaxRetryBackoff);
        _status = status;
        _events = events;
        _stopping = stopping;
        _abort = abort;
    }

    /// <summary>
    /// Runs the handler until it completes or fails for good. One that completes at once costs a call: no async state
    /// machine.
    /// </summary>
    public ValueTask<HandlerResult> RunAsync(TWork work, Activity? activity)
    {
        long started = HandlerEvents.Starting();
        int records = _recordsOf?.Invoke(work) ?? 1;
        _status.HandlerStarted(records);
        Task first;
        try
        {
            first = Invoke(work);
        }
        catch (Exception e)
        {
            first = Task.FromException(e);
        }

        if (first.Status == TaskStatus.RanToCompletion)
        {
            Ran(work, started, completed: true);
            _status.HandlerEnded(records);
            return default;
        }

        return RunWithRetriesAsync(work, activity, first, started, records);
    }

    /// <summary>The first attempt still running or failed: await it, and retry as the policy says.</summary>
    private async ValueTask<HandlerResult> RunWithRetriesAsync(TWork work, Activity? activity, Task first, long firstStarted, int records)
    {
        try
        {
            for (int attempt = 1; ; attempt++)
            {
                long started = attempt == 1 ? firstStarted : HandlerEvents.Starting();
                try
                {
                    Task handling = attempt == 1 ? first : Invoke(work);
                    if (!handling.IsCompleted)
                    {
                        await handling.ConfigureAwait(false);
                    }

                    handling.GetAwaiter().GetResult(); // a synchronous failure throws here
                    Ran(work, started, completed: true);
                    return default;
                }
                catch (OperationCanceledException e) when (_abort.IsCancellationRequested)
                {
                    Ran(work, started, completed: false, e);
                    _events.Cancelled(activity, e, _describe(work));
                    return new HandlerResult(HandlerOutcome.Cancelled, e);
                }
                catch (Exception e)
                {
                    Ran(work, started, completed: false, e);
                    _status.HandlerFailed(attempt, e);
                    HandlerFailureAction action = _failures.Classify?.Invoke(e) ?? HandlerFailureAction.Retry;
                    bool ranOut = action == HandlerFailureAction.Retry && attempt >= _failures.MaxAttempts;
                    if (ranOut)
                    {
                        action = _failures.WhenAttemptsRunOut;
                    }

                    if (action != HandlerFailureAction.Retry)
                    {
                        HandlerEvents.FailedForGood(activity, e);
                        return new HandlerResult(
                            action == HandlerFailureAction.DeadLetter ? HandlerOutcome.DeadLetter : HandlerOutcome.Stop, e, ranOut);
                    }

                    TimeSpan delay = _backoff.Delay(attempt);
                    _events.Retrying(activity, e, _describe(work), attempt, _failures.MaxAttempts, delay);
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
        finally
        {
            _status.HandlerEnded(records);
        }
    }

    private void Ran(TWork work, long started, bool completed, Exception? failure = null) =>
        _events.Ran(started, completed ? _recordsOf?.Invoke(work) ?? 1 : 0, work, _partitionOf, failure);

    private Task Invoke(TWork work) => _needsScope ? InvokeScoped(work) : _handler(_services, work, _abort);

    private async Task InvokeScoped(TWork work)
    {
        using IServiceScope scope = _services.CreateScope();
        await _handler(scope.ServiceProvider, work, _abort).ConfigureAwait(false);
    }
}
