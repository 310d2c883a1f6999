using System;
using System.Diagnostics;

namespace KafkaProtobuf.Hosting.Diagnostics;

/// <summary>Which span is current around a handler and a conclusion.</summary>
internal static class Spans
{
    /// <summary>
    /// A handler started in a span: the span stays current in the handler's own context only, not on the thread that
    /// started it.
    /// </summary>
    internal static void Leave(Activity? activity)
    {
        if (activity is not null)
        {
            Activity.Current = activity.Parent;
        }
    }

    /// <summary>
    /// Runs <paramref name="conclude"/> in the span of a record or batch (a dead letter continues it), which ends with it.
    /// Untraced, <see cref="Activity.Current"/> (an AsyncLocal, read and written per record) is not touched.
    /// </summary>
    internal static TResult In<TState, TResult>(Activity? activity, TState state, Func<TState, Activity?, TResult> conclude)
    {
        if (activity is null)
        {
            return conclude(state, null);
        }

        Activity? previous = Activity.Current;
        Activity.Current = activity;
        try
        {
            return conclude(state, activity);
        }
        finally
        {
            activity.Dispose();
            Activity.Current = previous;
        }
    }
}
