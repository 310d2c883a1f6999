using System.Collections.Concurrent;

namespace KafkaProtobuf.Hosting.Health;

/// <summary>One consumer's operator requests waiting for its loop thread; a loop that ends answers the rest.</summary>
internal sealed class OperatorRequests
{
    private readonly ConcurrentQueue<OperatorRequest> _queue = new();
    private volatile bool _closed = true; // until the loop runs

    /// <summary>Nothing waits: the loop's check on each turn, one read.</summary>
    public bool IsEmpty => _queue.IsEmpty;

    /// <summary>Queues a request; false (nothing queued) when no loop runs to take it.</summary>
    public bool TryAdd(OperatorRequest request)
    {
        if (_closed)
        {
            return false;
        }

        _queue.Enqueue(request);
        if (_closed)
        {
            Close(); // the loop ended while this was queued: answer it
        }

        return true;
    }

    /// <summary>The next request the loop may apply (withdrawn ones are dropped).</summary>
    public bool TryTake(out OperatorRequest request)
    {
        while (_queue.TryDequeue(out OperatorRequest? next))
        {
            if (next.TryTake())
            {
                request = next;
                return true;
            }
        }

        request = null!;
        return false;
    }

    /// <summary>The loop starts taking requests.</summary>
    public void Open() => _closed = false;

    /// <summary>
    /// The loop ended: what waits is answered <see cref="PartitionActionResult.NotRunning"/>, and nothing more is queued.
    /// </summary>
    public void Close()
    {
        _closed = true;
        while (TryTake(out OperatorRequest request))
        {
            request.Complete(PartitionActionResult.NotRunning);
        }
    }
}
