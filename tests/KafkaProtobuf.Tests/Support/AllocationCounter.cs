using System;

namespace KafkaProtobuf.Tests.Support;

/// <summary>
/// Counts what an action allocates on the calling thread, with <see cref="GC.GetAllocatedBytesForCurrentThread"/>.
/// The count is now and then off: the runtime itself allocates a few bytes on the thread (seen: 8 and 16 bytes in a
/// run), and the counter can be one allocation quantum (~8 KB) high (dotnet/runtime#63487). So each count is the least
/// of several attempts: noise comes and goes, an allocation the action makes never goes away.
/// </summary>
public static class AllocationCounter
{
    private const int Attempts = 5;

    /// <summary>Bytes allocated by <paramref name="callsPerAttempt"/> calls, the least of several attempts.</summary>
    /// <param name="action">What to count.</param>
    /// <param name="warmUps">Calls made first and not counted: JIT tiers, statics, lazy initialisation.</param>
    /// <param name="callsPerAttempt">Calls counted together in one attempt.</param>
    public static long Least(Action action, int warmUps, int callsPerAttempt)
    {
        for (int i = 0; i < warmUps; i++)
        {
            action();
        }

        long least = long.MaxValue;
        for (int attempt = 0; attempt < Attempts; attempt++)
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < callsPerAttempt; i++)
            {
                action();
            }

            least = Math.Min(least, GC.GetAllocatedBytesForCurrentThread() - before);
        }

        return least;
    }
}
