using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Health;
using KafkaProtobuf.Hosting.Loops;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace KafkaProtobuf.Hosting.Service;

/// <summary>
/// The recommended consume loop, run by the host: its life. It has the consumer put together
/// (<see cref="ConsumerFactory{TKey, TValue}"/>), runs its loop on a thread of its own, which alone touches the Kafka
/// consumer, and owns shutdown, failure and the process's exit code. Shutdown stops taking records, lets the records
/// in hand finish (cancelled when the host's shutdown timeout runs out), then closes the consumer, which commits and
/// leaves the group.
/// </summary>
internal sealed class KafkaProtobufConsumerService<TKey, TValue> : IHostedService, IConsumerOwner, IDisposable
{
    private readonly ConsumerRegistration<TKey, TValue> _registration;
    private readonly IServiceProvider _services;
    private readonly ILogger _logger;
    private readonly ConsumerStatus _status;
    private readonly CancellationTokenSource _stopTaking = new();
    private readonly CancellationTokenSource _abortHandlers = new();
    private readonly TaskCompletionSource<bool> _loopEnded = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private KafkaProtobufConsumerOptions _options = null!;
    private ConsumerDiagnostics? _diagnostics;
    private ConsumerParts<TKey, TValue>? _parts;
    private Thread? _thread;

    public KafkaProtobufConsumerService(ConsumerRegistration<TKey, TValue> registration, IServiceProvider services)
    {
        _registration = registration;
        _services = services;
        _logger = services.GetService<ILoggerFactory>()?.CreateLogger("KafkaProtobuf.Hosting.Consumer." + registration.Name)
            ?? NullLogger.Instance;
        _status = services.GetRequiredService<KafkaProtobufConsumerStates>().For(registration.Name);
    }

    internal string Name => _registration.Name;

    /// <summary>The options the consumer starts with: configuration, then code, validated.</summary>
    internal KafkaProtobufConsumerOptions CreateOptions() => _registration.CreateOptions(_services);

    public Task StartAsync(CancellationToken cancellationToken)
    {
        _options = CreateOptions();
        _diagnostics = new ConsumerDiagnostics(Name, _options.Consumer.GroupId);
        var factory = new ConsumerFactory<TKey, TValue>(
            _registration, _options, _services, _status, _logger, _stopTaking.Token, _abortHandlers.Token);
        _parts = factory.Create(this, _diagnostics);
        _parts.Client.Subscribe(_options.SubscribedTopics());
        _status.Describe(_options.Consumer.GroupId, _options.SubscribedTopics(), _options.DeadLetterTopic);
        _status.LagDegradedThreshold = _options.LagDegradedThreshold;
        _status.LagUnhealthyThreshold = _options.LagUnhealthyThreshold;
        ConsumerMetrics.Observe(_status.Lag);
        _status.Running();
        ConsumerLog.Started(_logger, Name, _options.Topics);
        TimeSpan copyTimeout = _options.EffectiveCopyTimeout();
        if (copyTimeout < _options.CopyTimeout)
        {
            ConsumerLog.CopyTimeoutCut(_logger, Name, _options.CopyTimeout, _options.MaxPollInterval(), copyTimeout);
        }

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

        StopTaking();
        var timedOut = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        using (cancellationToken.Register(() => timedOut.TrySetResult(true)))
        {
            if (await Task.WhenAny(_loopEnded.Task, timedOut.Task).ConfigureAwait(false) == _loopEnded.Task)
            {
                return;
            }
        }

        // The host's shutdown timeout ran out with a handler still running: cancel it, and give the loop a moment to close.
        _abortHandlers.Cancel();
        await Task.WhenAny(_loopEnded.Task, Task.Delay(LoopContext<TKey, TValue>.CloseGrace, CancellationToken.None)).ConfigureAwait(false);
    }

    public void Dispose()
    {
        if (_thread is { IsAlive: true })
        {
            StopTaking();
            _abortHandlers.Cancel();
            if (!_thread.Join(LoopContext<TKey, TValue>.CloseGrace))
            {
                // A handler that ignores its token still holds the loop: freeing the client under it could crash the
                // process, so leave it to the process's exit.
                ConsumerLog.Failed(_logger, Name, "the loop did not end after its handler was cancelled; the consumer is left open", null);
                return;
            }
        }

        _parts?.Dispose();
        _stopTaking.Dispose();
        _abortHandlers.Dispose();
    }

    ConsumerFailure? IConsumerOwner.Revoked(IReadOnlyList<TopicPartition> partitions)
    {
        ConsumerFailure? failure = _parts?.Loop.Revoke(partitions);
        _status.Revoked(partitions);
        return failure;
    }

    /// <summary>The loop thread: the loop runs until it ends, and why it ended is reported here, the one place.</summary>
    private void Run()
    {
        try
        {
            _status.Requests.Open();
            if (_parts!.Loop.Run() is { } failure)
            {
                Fail(failure);
            }
        }
        catch (Exception e)
        {
            Fail(new ConsumerFailure("the consume loop failed: " + BoundedText.Describe(e), e));
        }
        finally
        {
            _status.Requests.Close();
            Close();
            _loopEnded.TrySetResult(true);
        }
    }

    /// <summary>Shutdown begins: no record or batch starts its handler from now on.</summary>
    private void StopTaking()
    {
        if (!_stopTaking.IsCancellationRequested)
        {
            _stopTaking.Cancel();
            _diagnostics?.Stopping();
        }
    }

    /// <summary>
    /// The consumer stops for good: the health check reports why, and unless told otherwise the application stops
    /// with a non-zero exit code, so that its orchestrator restarts it.
    /// </summary>
    private void Fail(ConsumerFailure failure)
    {
        _status.Failed(failure.Reason);
        ConsumerLog.Failed(_logger, Name, failure.Reason, failure.Exception);
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
            _parts!.Client.Close(); // commits the stored offsets and leaves the group
            _parts.Copies?.Flush(TimeSpan.FromSeconds(5));
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
