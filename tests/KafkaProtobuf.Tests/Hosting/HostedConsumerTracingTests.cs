using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Text;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Diagnostics;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using OpenTelemetry;
using OpenTelemetry.Trace;
using Vectors.Telemetry.V1;
using Xunit;
using static KafkaProtobuf.Tests.EndToEnd.DeviceRecords;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// Traces that cross Kafka, seen through the real OpenTelemetry SDK (in-memory exporter): a record produced inside a
/// span is processed in a span of the same trace with the messaging attributes; a record without trace headers starts
/// a trace of its own; a poison record and a failing handler show as errors, their dead letters carrying the processing
/// span's context on. The SDK listens process-wide, so spans are picked by this test's topic.
/// </summary>
public sealed class HostedConsumerTracingTests : IDisposable
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(60);
    private static readonly ActivitySource Web = new("KafkaProtobuf.Tests.Web");

    private readonly EmbeddedKafkaCluster _cluster = EmbeddedKafkaCluster.Start(1);
    private readonly string _topic = "traced-" + Guid.NewGuid().ToString("N")[..8];
    private readonly string _group = "traced-" + Guid.NewGuid().ToString("N");
    private readonly List<Activity> _exported = [];
    private readonly TracerProvider _tracing;

    public HostedConsumerTracingTests()
    {
        _cluster.SetGroupInitialRebalanceDelay(TimeSpan.Zero);
        _tracing = Sdk.CreateTracerProviderBuilder()
            .AddSource(KafkaProtobufConsumerTracing.ActivitySourceName, Web.Name)
            .SetSampler(new AlwaysOnSampler())
            .AddInMemoryExporter(_exported)
            .Build()!;
    }

    public void Dispose()
    {
        _tracing.Dispose();
        _cluster.Dispose();
    }

    private List<Activity> Spans()
    {
        lock (_exported)
        {
            return _exported.Where(a => a.Source.Name == KafkaProtobufConsumerTracing.ActivitySourceName && Equals(a.GetTagItem("messaging.destination.name"), _topic)).ToList();
        }
    }

    private static string Tag(Activity activity, string name) => Convert.ToString(activity.GetTagItem(name), System.Globalization.CultureInfo.InvariantCulture) ?? "<none>";

    [Fact]
    public async Task ARecordProducedInsideASpan_IsProcessedInASpanOfTheSameTrace_WithTheMessagingAttributes_AndOneWithoutHeadersStartsItsOwnTrace()
    {
        _cluster.CreateTopic(_topic, 1);
        ActivityContext web;
        using (IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(_cluster.CreateProducerConfig()).Build())
        {
            using (Activity request = Web.StartActivity("POST /devices", ActivityKind.Server)!)
            {
                web = request.Context;
                var message = new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("k"), Value = GoodValue(1), Headers = [] };
                KafkaTraceContext.Inject(message.Headers); // the producer's side: the current span's context into the headers
                producer.Produce(_topic, message);
            }

            producer.Produce(_topic, new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("k"), Value = GoodValue(2) }); // no headers
            Assert.Equal(0, producer.Flush(Deadline));
        }

        var handledIn = new ConcurrentDictionary<long, (ActivityTraceId, ActivitySpanId)>();
        using IHost host = Start((record, _) =>
        {
            handledIn[record.Offset.Value] = (Activity.Current!.TraceId, Activity.Current.SpanId); // the handler runs inside the span
            return Task.CompletedTask;
        });
        Wait.Until(() => Spans().Count == 2, "two process spans", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Activity continued = Spans().Single(s => Tag(s, "messaging.kafka.offset") == "0");
        Assert.Equal(web.TraceId, continued.TraceId);
        Assert.Equal(web.SpanId, continued.ParentSpanId);
        Assert.Equal(ActivityKind.Consumer, continued.Kind);
        Assert.Equal("process " + _topic, continued.DisplayName);
        Assert.Equal("kafka", Tag(continued, "messaging.system"));
        Assert.Equal("process", Tag(continued, "messaging.operation.type"));
        Assert.Equal("0", Tag(continued, "messaging.destination.partition.id"));
        Assert.Equal(_group, Tag(continued, "messaging.consumer.group.name"));
        Assert.Equal(Device.Descriptor.FullName, Tag(continued, "kafkaprotobuf.message.type"));
        Assert.Equal(ActivityStatusCode.Unset, continued.Status);
        Assert.Equal((continued.TraceId, continued.SpanId), handledIn[0]);

        Activity own = Spans().Single(s => Tag(s, "messaging.kafka.offset") == "1");
        Assert.NotEqual(web.TraceId, own.TraceId);
        Assert.Equal(default, own.ParentSpanId);
        Assert.Equal((own.TraceId, own.SpanId), handledIn[1]);
    }

    [Fact]
    public async Task APoisonRecordAndAFailingHandler_ShowAsErrors_AndTheirDeadLettersCarryTheSpanOn()
    {
        _cluster.CreateTopic(_topic, 1);
        _cluster.CreateTopic(_topic + ".dlq", 1);
        using (IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(_cluster.CreateProducerConfig()).Build())
        {
            producer.Produce(_topic, new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("k"), Value = Encoding.UTF8.GetBytes("{\"not\":\"framed\"}") });
            producer.Produce(_topic, new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("k"), Value = GoodValue(7) });
            Assert.Equal(0, producer.Flush(Deadline));
        }

        using IHost host = Start((_, _) => throw new InvalidOperationException("the ledger is closed"), options => options.HandlerFailures.MaxAttempts = 2);
        Wait.Until(() => Spans().Count == 2, "two process spans", Deadline);
        List<ConsumeResult<byte[], byte[]>> letters = ReadDeadLetters(_cluster.CreateConsumerConfig(), _topic + ".dlq", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Activity poison = Spans().Single(s => Tag(s, "messaging.kafka.offset") == "0");
        Assert.Equal(ActivityStatusCode.Error, poison.Status);
        Assert.Equal("UnknownMagicByte", Tag(poison, "error.type"));
        Assert.Contains(poison.Events, e => e.Name == "kafkaprotobuf.dead_letter" && Equals(e.Tags.Single(t => t.Key == "kafkaprotobuf.dead_letter.reason").Value, "deserialization"));

        Activity failed = Spans().Single(s => Tag(s, "messaging.kafka.offset") == "1");
        Assert.Equal(ActivityStatusCode.Error, failed.Status);
        Assert.Equal(typeof(InvalidOperationException).FullName, Tag(failed, "error.type"));
        Assert.Single(failed.Events, e => e.Name == "kafkaprotobuf.retry");
        Assert.Equal(2, failed.Events.Count(e => e.Name == "exception"));
        Assert.Contains(failed.Events, e => e.Name == "kafkaprotobuf.dead_letter");

        // Each dead letter continues its record's processing span.
        Assert.Equal(2, letters.Count);
        foreach ((ConsumeResult<byte[], byte[]> letter, Activity span) in letters.Zip([poison, failed]))
        {
            Assert.True(KafkaTraceContext.TryExtract(letter.Message.Headers, out ActivityContext carried));
            Assert.Equal((span.TraceId, span.SpanId), (carried.TraceId, carried.SpanId));
            Assert.Equal(SourceOf(letter.Message.Headers).Offset.Value.ToString(System.Globalization.CultureInfo.InvariantCulture), Tag(span, "messaging.kafka.offset"));
        }
    }

    private IHost Start(Func<ConsumeResult<string, Device>, System.Threading.CancellationToken, Task> handler, Action<KafkaProtobufConsumerOptions>? configure = null)
    {
        var builder = new HostApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Services
            .AddKafkaProtobufConsumer<string, Device>("traced", options =>
            {
                options.Consumer = _cluster.CreateConsumerConfig(_group);
                options.Consumer.EnableAutoCommit = null;
                options.Topics.Add(_topic);
                options.DeadLetterTopic = _topic + ".dlq";
                options.DeadLetterProducer = _cluster.CreateProducerConfig();
                options.HandlerFailures.InitialBackOff = TimeSpan.FromMilliseconds(10);
                options.HandlerFailures.MaxBackOff = TimeSpan.FromMilliseconds(40);
                configure?.Invoke(options);
            })
            .WithProtobufValues()
            .Handle(handler);
        IHost host = builder.Build();
        host.StartAsync().WaitAsync(Deadline).GetAwaiter().GetResult();
        return host;
    }
}
