using System.Threading;
using System.Threading.Tasks;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>One caller's wait on work shared with others (a single-flight request, a token fetch): its cancellation stops its own wait only.</summary>
internal static class CallerWait
{
    internal static async Task<T> WaitAsync<T>(Task<T> task, CancellationToken cancellationToken)
    {
        if (!cancellationToken.CanBeCanceled || task.IsCompleted)
        {
            return await task.ConfigureAwait(false);
        }

        // The work goes on for the other callers; this one stops waiting.
        var cancelled = new TaskCompletionSource<T>(TaskCreationOptions.RunContinuationsAsynchronously);
        using (cancellationToken.Register(() => cancelled.TrySetCanceled(cancellationToken)))
        {
            return await (await Task.WhenAny(task, cancelled.Task).ConfigureAwait(false)).ConfigureAwait(false);
        }
    }
}
