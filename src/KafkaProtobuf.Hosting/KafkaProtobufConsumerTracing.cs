namespace KafkaProtobuf.Hosting;

/// <summary>
/// The hosted consumers' traces: one <c>process</c> span per record (kind Consumer) on this
/// <see cref="System.Diagnostics.ActivitySource"/>,
/// following OpenTelemetry's messaging conventions and continuing the trace in the record's <c>traceparent</c> header
/// (see <see cref="KafkaProtobuf.Diagnostics.KafkaTraceContext"/>). With OpenTelemetry: <c>.WithTracing(t =&gt;
/// t.AddSource(KafkaProtobufConsumerTracing.ActivitySourceName))</c>.
/// </summary>
public static class KafkaProtobufConsumerTracing
{
    /// <summary>The activity source's name, <c>KafkaProtobuf.Hosting</c>.</summary>
    public const string ActivitySourceName = "KafkaProtobuf.Hosting";
}
