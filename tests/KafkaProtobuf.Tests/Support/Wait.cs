using System;
using System.Threading;

namespace KafkaProtobuf.Tests.Support;

/// <summary>The one way tests wait for something to happen: a condition polled until a deadline, never a sleep asserted on.</summary>
public static class Wait
{
    /// <summary>Polls <paramref name="condition"/> every <paramref name="poll"/> (10 ms by default) until it holds; throws past <paramref name="deadline"/>.</summary>
    /// <param name="condition">What to wait for; called on this thread.</param>
    /// <param name="what">Named in the timeout's message.</param>
    /// <param name="deadline">How long to wait at most.</param>
    /// <param name="poll">What to do between two checks instead of sleeping 10 ms (e.g. a consumer's poll).</param>
    public static void Until(Func<bool> condition, string what, TimeSpan deadline, Action? poll = null) => Until(condition, () => what, deadline, poll);

    /// <summary>As <see cref="Until(Func{bool}, string, TimeSpan, Action?)"/>, with <paramref name="what"/> asked only on a timeout (to say how far it got).</summary>
    public static void Until(Func<bool> condition, Func<string> what, TimeSpan deadline, Action? poll = null)
    {
        DateTime end = DateTime.UtcNow + deadline;
        while (!condition())
        {
            if (DateTime.UtcNow > end)
            {
                throw new TimeoutException("waited in vain for " + what());
            }

            if (poll is null)
            {
                Thread.Sleep(10);
            }
            else
            {
                poll();
            }
        }
    }
}
