using System;
using System.Collections.Concurrent;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Hosting;

namespace KafkaProtobuf.Aspire;

/// <summary>
/// Flushes the producers this integration created when the host stops, before the container disposes them, so that
/// records still in librdkafka's queue are delivered rather than dropped (until the host's shutdown timeout).
/// </summary>
internal sealed class ProducerFlush : IHostedService
{
    private readonly ConcurrentQueue<Action<CancellationToken>> _flushes = new();

    public void Add(Action<CancellationToken> flush) => _flushes.Enqueue(flush);

    public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StopAsync(CancellationToken cancellationToken) =>
        Task.Run(
            () =>
            {
                foreach (Action<CancellationToken> flush in _flushes)
                {
                    try
                    {
                        flush(cancellationToken);
                    }
                    catch (OperationCanceledException)
                    {
                        return; // the host's shutdown timeout: what is still queued is lost, as librdkafka would drop it
                    }
                }
            },
            CancellationToken.None);
}
