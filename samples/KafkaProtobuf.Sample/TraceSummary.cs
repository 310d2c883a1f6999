using System;
using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Text;
using KafkaProtobuf.Hosting;

namespace KafkaProtobuf.Sample;

/// <summary>
/// One trace across Kafka, printed at the end: a checkout request's span in the producer, and the hosted consumer's
/// process span of the record it wrote. Listens with a plain <see cref="ActivityListener"/> (what an OpenTelemetry SDK
/// does for you) and keeps only that trace's spans.
/// </summary>
internal sealed class TraceSummary : IDisposable
{
    private const string SourceName = "KafkaProtobuf.Sample";
    private static readonly ActivitySource Source = new(SourceName);

    private readonly ActivityListener _listener;
    private readonly ConcurrentQueue<Activity> _spans = new();
    private ActivityTraceId _traced;

    public TraceSummary()
    {
        _listener = new ActivityListener
        {
            ShouldListenTo = source => source.Name is SourceName or KafkaProtobufConsumerTracing.ActivitySourceName,
            // Record only the traced request's trace; every other record's span is not even created.
            Sample = (ref ActivityCreationOptions<ActivityContext> options) =>
                options.Source.Name == SourceName || options.Parent.TraceId == _traced ? ActivitySamplingResult.AllDataAndRecorded : ActivitySamplingResult.None,
            ActivityStopped = activity =>
            {
                if (activity.TraceId == _traced)
                {
                    _spans.Enqueue(activity);
                }
            },
        };
        ActivitySource.AddActivityListener(_listener);
    }

    /// <summary>Starts the traced request; the record produced inside it carries its context.</summary>
    public Activity Begin(string name)
    {
        Activity activity = Source.StartActivity(name, ActivityKind.Server)!;
        _traced = activity.TraceId;
        return activity;
    }

    public string Describe()
    {
        var text = new StringBuilder($"One trace across Kafka ({_traced}):");
        foreach (Activity span in _spans.OrderBy(s => s.StartTimeUtc))
        {
            string depth = span.ParentSpanId == default ? "  " : "    └ ";
            text.Append(CultureInfo.InvariantCulture, $"\n{depth}{span.DisplayName} [{span.Source.Name}, {span.Kind}] {span.Duration.TotalMilliseconds:0.0} ms");
            foreach ((string key, object? value) in span.TagObjects.Where(t => t.Key.StartsWith("messaging.destination", StringComparison.Ordinal) || t.Key is "messaging.kafka.offset" or "kafkaprotobuf.message.type" or "error.type"))
            {
                text.Append(CultureInfo.InvariantCulture, $" {key}={value}");
            }
        }

        return _spans.Count >= 2 ? text.ToString() : text.Append("\n  (the consumer's span did not arrive)").ToString();
    }

    public void Dispose() => _listener.Dispose();
}
