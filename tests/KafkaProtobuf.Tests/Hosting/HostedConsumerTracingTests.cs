using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Text;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Diagnostics;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Tests.Support;
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
public sealed class HostedConsumerTracingTests : HostedConsumerTestBase
{
    private static readonly ActivitySource Web = new("KafkaProtobuf.Tests.Web");

    private readonly string _topic = "traced-" + Guid.NewGuid().ToString("N")[..8];
    private readonly List<Activity> _exported = [];
    private readonly TracerProvider _tracing;

    public HostedConsumerTracingTests()
        : base("traced")
    {
        _tracing = Sdk.CreateTracerProviderBuilder()
            .AddSource(KafkaProtobufConsumerTracing.ActivitySourceName, Web.Name)
            .SetSampler(new AlwaysOnSampler())
            .AddInMemoryExporter(_exported)
            .Build()!;
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            _tracing.Dispose();
        }

        base.Dispose(disposing);
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
        Cluster.CreateTopic(_topic, 1);
        ActivityContext web;
        using (IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(Cluster.CreateProducerConfig()).Build())
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
        Assert.Equal(Group, Tag(continued, "messaging.consumer.group.name"));
        Assert.Equal(Device.Descriptor.FullName, Tag(continued, "kafkaprotobuf.message.type"));
        Assert.Equal(ActivityStatusCode.Unset, continued.Status);
        Assert.Equal((continued.TraceId, continued.SpanId), handledIn[0]);

        Activity own = Spans().Single(s => Tag(s, "messaging.kafka.offset") == "1");
        Assert.NotEqual(web.TraceId, own.TraceId);
        Assert.Equal(default, own.ParentSpanId);
        Assert.Equal((own.TraceId, own.SpanId), handledIn[1]);
    }

    [Theory]
    [InlineData("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", true)] // W3C's own example, as a Java or Go producer writes it
    [InlineData("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00", true)] // not sampled upstream: still its parent
    [InlineData("00-00000000000000000000000000000000-b7ad6b7169203331-01", false)] // an all-zero trace id is invalid
    [InlineData("ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", false)] // version ff is forbidden
    [InlineData("00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01", false)] // upper case is not W3C's
    [InlineData("not a traceparent", false)]
    public async Task ALiteralTraceparent_WrittenByAnotherProducer_IsTheSpansParent_WhenValid(string traceparent, bool valid)
    {
        Cluster.CreateTopic(_topic, 1);
        using (IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(Cluster.CreateProducerConfig()).Build())
        {
            var headers = new Headers { { "traceparent", Encoding.ASCII.GetBytes(traceparent) } };
            producer.Produce(_topic, new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("k"), Value = GoodValue(1), Headers = headers });
            Assert.Equal(0, producer.Flush(Deadline));
        }

        var handled = new ConcurrentQueue<long>();
        using IHost host = Start((record, _) =>
        {
            handled.Enqueue(record.Offset.Value);
            return Task.CompletedTask;
        });
        Wait.Until(() => Spans().Count == 1, "the process span", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Activity span = Assert.Single(Spans());
        Assert.Equal([0L], handled); // handled either way: a bad header never stops a record
        if (valid)
        {
            Assert.Equal("0af7651916cd43dd8448eb211c80319c", span.TraceId.ToHexString());
            Assert.Equal("b7ad6b7169203331", span.ParentSpanId.ToHexString());
        }
        else
        {
            Assert.NotEqual("0af7651916cd43dd8448eb211c80319c", span.TraceId.ToHexString());
            Assert.Equal(default, span.ParentSpanId); // a trace of its own
        }
    }

    [Fact]
    public async Task APoisonRecordAndAFailingHandler_ShowAsErrors_AndTheirDeadLettersCarryTheSpanOn()
    {
        Cluster.CreateTopic(_topic, 1);
        Cluster.CreateTopic(_topic + ".dlq", 1);
        using (IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(Cluster.CreateProducerConfig()).Build())
        {
            producer.Produce(_topic, new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("k"), Value = Encoding.UTF8.GetBytes("{\"not\":\"framed\"}") });
            producer.Produce(_topic, new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("k"), Value = GoodValue(7) });
            Assert.Equal(0, producer.Flush(Deadline));
        }

        using IHost host = Start((_, _) => throw new InvalidOperationException("the ledger is closed"), options => options.HandlerFailures.MaxAttempts = 2);
        Wait.Until(() => Spans().Count == 2, "two process spans", Deadline);
        List<ConsumeResult<byte[], byte[]>> letters = ReadDeadLetters(Cluster.CreateConsumerConfig(), _topic + ".dlq", Deadline);
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

    [Fact]
    public async Task ABatch_IsProcessedInOneSpan_LinkedToTheContextEachOfItsRecordsCarries()
    {
        Cluster.CreateTopic(_topic, 1);
        var produced = new List<ActivityContext>();
        using (IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(Cluster.CreateProducerConfig()).Build())
        {
            for (int i = 0; i < 3; i++)
            {
                using Activity request = Web.StartActivity("POST /devices", ActivityKind.Server)!;
                produced.Add(request.Context);
                var message = new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("k"), Value = GoodValue(i), Headers = [] };
                KafkaTraceContext.Inject(message.Headers);
                producer.Produce(_topic, message);
            }

            producer.Produce(_topic, new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("k"), Value = GoodValue(3) }); // no headers: no link
            Assert.Equal(0, producer.Flush(Deadline));
        }

        var handledIn = new ConcurrentQueue<(int Count, ActivityTraceId, ActivitySpanId)>();
        using IHost host = StartHost("traced", _topic, builder => builder.HandleBatch((batch, _) =>
        {
            handledIn.Enqueue((batch.Count, Activity.Current!.TraceId, Activity.Current.SpanId));
            return Task.CompletedTask;
        }), options =>
        {
            options.Batches.MaxSize = 4; // the four records are one batch, handed over when full: a slow moment cannot cut it
            options.Batches.MaxWait = TimeSpan.FromMinutes(5);
        });
        Wait.Until(() => handledIn.Sum(h => h.Count) == 4 && Spans().Count == handledIn.Count, "the batch's span exported", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Activity span = Assert.Single(Spans());
        Assert.Equal("process " + _topic, span.DisplayName);
        Assert.Equal(ActivityKind.Consumer, span.Kind);
        Assert.Equal("4", Tag(span, "messaging.batch.message_count"));
        Assert.Equal("0", Tag(span, "messaging.destination.partition.id"));
        Assert.Equal(Group, Tag(span, "messaging.consumer.group.name"));
        Assert.Equal(produced.Select(c => (c.TraceId, c.SpanId)), span.Links.Select(l => (l.Context.TraceId, l.Context.SpanId)));
        Assert.DoesNotContain(produced, c => c.TraceId == span.TraceId); // a batch has many parents: it starts its own trace and links to them
        Assert.Equal((4, span.TraceId, span.SpanId), Assert.Single(handledIn));
    }

    private IHost Start(Func<ConsumeResult<string, Device>, System.Threading.CancellationToken, Task> handler, Action<KafkaProtobufConsumerOptions>? configure = null) =>
        StartHost("traced", _topic, handler, configure);
}
