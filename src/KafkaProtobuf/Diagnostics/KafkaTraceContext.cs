using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Text;
using Confluent.Kafka;

namespace KafkaProtobuf.Diagnostics;

/// <summary>
/// W3C trace context (<c>traceparent</c>, <c>tracestate</c>, and baggage) in Kafka record headers, through
/// <see cref="DistributedContextPropagator.Current"/>, so a trace started in a web request continues in the consumer
/// that handles the record. No OpenTelemetry dependency: any listener of <see cref="Activity"/> (the OpenTelemetry SDK
/// among them) sees the spans.
/// </summary>
/// <remarks>
/// Headers are appended; when a name occurs more than once the last one counts, as OpenTelemetry's Kafka
/// instrumentations read it. That lets a dead letter keep its record's headers byte for byte and still carry the
/// trace of the consumer that wrote it.
/// </remarks>
public static class KafkaTraceContext
{
    /// <summary>Appends the context of <see cref="Activity.Current"/> to <paramref name="headers"/>; nothing when there is no current activity.</summary>
    /// <param name="headers">The record's headers.</param>
    /// <exception cref="ArgumentNullException"><paramref name="headers"/> is null.</exception>
    public static void Inject(Headers headers) => Inject(headers, Activity.Current);

    /// <summary>Appends the context of <paramref name="activity"/> to <paramref name="headers"/>; nothing when it is null.</summary>
    /// <param name="headers">The record's headers.</param>
    /// <param name="activity">The activity whose trace the record continues.</param>
    /// <exception cref="ArgumentNullException"><paramref name="headers"/> is null.</exception>
    public static void Inject(Headers headers, Activity? activity)
    {
        if (headers is null)
        {
            throw new ArgumentNullException(nameof(headers));
        }

        if (activity is null)
        {
            return;
        }

        DistributedContextPropagator.Current.Inject(activity, headers, static (carrier, name, value) =>
        {
            if (carrier is Headers target && value is not null)
            {
                target.Add(name, Encoding.UTF8.GetBytes(value));
            }
        });
    }

    /// <summary>Reads the trace context a producer wrote into a record's headers (a <c>tracestate</c> over 512 characters is dropped).</summary>
    /// <param name="headers">The record's headers, or null.</param>
    /// <param name="context">The context, when the headers carry a valid one.</param>
    /// <returns>Whether they did.</returns>
    public static bool TryExtract(Headers? headers, out ActivityContext context)
    {
        context = default;
        if (headers is null || headers.Count == 0)
        {
            return false;
        }

        DistributedContextPropagator.Current.ExtractTraceIdAndState(headers, Read, out string? traceParent, out string? traceState);
        if (traceState is { Length: > MaxTraceStateChars })
        {
            traceState = null; // W3C trace context lets an over-long state be dropped; the record's bytes must not grow every span and dead letter
        }

        return traceParent is not null && ActivityContext.TryParse(traceParent, traceState, out context);
    }

    /// <summary>The longest <c>tracestate</c> read from a record (W3C's recommended limit); a longer one is dropped, the trace kept.</summary>
    private const int MaxTraceStateChars = 512;

    private static void Read(object? carrier, string name, out string? value, out IEnumerable<string>? values)
    {
        values = null;
        value = carrier is Headers headers && headers.TryGetLastBytes(name, out byte[] bytes) ? Encoding.UTF8.GetString(bytes) : null;
    }
}
