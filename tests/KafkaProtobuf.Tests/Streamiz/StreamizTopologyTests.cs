using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Streamiz;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using Shop.V1;
using Streamiz.Kafka.Net;
using Streamiz.Kafka.Net.SerDes;
using Streamiz.Kafka.Net.Table;
using Xunit;

namespace KafkaProtobuf.Tests.Streamiz;

/// <summary>
/// A Streamiz topology on the embedded cluster with this package's serdes as the default, set up from the stream's
/// configuration alone: it reads registry-framed orders (a poison record and a tombstone among them), aggregates them per
/// customer through a state store, and writes the totals, which this package's deserializer reads back, as it reads the
/// store's changelog (the schema id kept in the prefix).
/// </summary>
public sealed class StreamizTopologyTests : IDisposable
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(60);

    private readonly EmbeddedKafkaCluster _cluster = EmbeddedKafkaCluster.Start(1);
    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();
    private readonly string _stateDirectory = Path.Combine(Path.GetTempPath(), "kafkaprotobuf-streamiz-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        _registry.Dispose();
        _cluster.Dispose();
        if (Directory.Exists(_stateDirectory))
        {
            Directory.Delete(_stateDirectory, recursive: true);
        }
    }

    [Fact]
    public async Task OrdersAggregatedPerCustomerThroughAStateStore_AreReadBackByThisPackagesDeserializer()
    {
        _cluster.SetGroupInitialRebalanceDelay(TimeSpan.Zero);
        _cluster.CreateTopic("orders", 1);
        _cluster.CreateTopic("totals", 1);
        using var client = new RegistryClient(_registry.Url);
        ProduceOrders(client);

        string application = "order-totals-" + Guid.NewGuid().ToString("N")[..8];
        _cluster.CreateTopic(application + "-totals-store-changelog", 1); // the mock cluster names no controller, so Streamiz's admin client cannot create it
        var config = new StreamConfig<StringSerDes, RegistryProtobufSerDes<OrderPlaced>>
        {
            ApplicationId = application,
            BootstrapServers = _cluster.BootstrapServers,
            AutoOffsetReset = AutoOffsetReset.Earliest,
            CommitIntervalMs = 100,
            StateDir = _stateDirectory,
            DeserializationExceptionHandler = ProtobufDeserializationHandler.ContinueOnBadDataOnly,
            Logger = Microsoft.Extensions.Logging.Abstractions.NullLoggerFactory.Instance,
        };
        config.AddConfig("schema.registry.url", _registry.Url);
        config.AddConfig("schema.registry.max.retries", "0");
        var builder = new StreamBuilder();
        builder.Stream<string, OrderPlaced>("orders")
            .GroupByKey()
            .Aggregate(
                () => new OrderPlaced(),
                (customer, order, total) =>
                {
                    var next = total.Clone();
                    next.Customer = customer;
                    next.OrderId = order.OrderId;
                    next.Lines.Add(order.Lines);
                    return next;
                },
                InMemory.As<string, OrderPlaced>("totals-store"))
            .ToStream()
            .To("totals");

        Dictionary<string, OrderPlaced> totals;
        using (var stream = new KafkaStream(builder.Build(), config))
        {
            await stream.StartAsync().WaitAsync(Deadline);
            totals = ReadLatest("totals", client, t => t.Values.Sum(o => o.Lines.Count) == 6);
        }

        Assert.Equal(["ada", "bob"], totals.Keys.Order());
        Assert.Equal(["o-5", "o-6"], totals.Values.Select(t => t.OrderId).Order());
        Assert.Equal(new[] { 100L, 300, 500 }, totals["ada"].Lines.Select(l => l.UnitPriceCents));
        Assert.Equal(new[] { 200L, 400, 600 }, totals["bob"].Lines.Select(l => l.UnitPriceCents));

        // The store's changelog: prefix-framed, registered under the changelog's own subject, readable without headers.
        Dictionary<string, OrderPlaced> changelog = ReadLatest(application + "-totals-store-changelog", client, t => t.Values.Sum(o => o.Lines.Count) == 6);
        Assert.Equal(totals["ada"], changelog["ada"]);
        Assert.NotNull(await client.GetLatestVersionAsync(application + "-totals-store-changelog-value"));
    }

    private void ProduceOrders(RegistryClient client)
    {
        using IProducer<string, OrderPlaced> producer = new ProducerBuilder<string, OrderPlaced>(_cluster.CreateProducerConfig())
            .SetValueSerializer((ISerializer<OrderPlaced>)new RegistryProtobufSerializer<OrderPlaced>(client, null))
            .Build();
        using IProducer<string, byte[]> raw = new ProducerBuilder<string, byte[]>(_cluster.CreateProducerConfig()).Build();
        string[] customers = ["ada", "bob", "ada", "bob", "ada", "bob"];
        for (int i = 0; i < customers.Length; i++)
        {
            producer.Produce("orders", new Message<string, OrderPlaced>
            {
                Key = customers[i],
                Value = new OrderPlaced { OrderId = "o-" + (i + 1), Customer = customers[i], Lines = { new OrderPlaced.Types.Line { Sku = "sku-" + i, Quantity = 1, UnitPriceCents = (i + 1) * 100 } } },
            });
            producer.Flush(Deadline);
            if (i == 2)
            {
                raw.Produce("orders", new Message<string, byte[]> { Key = "ada", Value = [7, 7, 7] }); // poison: skipped by the handler
                raw.Produce("orders", new Message<string, byte[]> { Key = "bob", Value = null! }); // tombstone: null, ignored by the aggregate
                raw.Flush(Deadline);
            }
        }
    }

    /// <summary>The last value per key of a topic, read with this package's typed deserializer, once <paramref name="done"/> holds.</summary>
    private Dictionary<string, OrderPlaced> ReadLatest(string topic, RegistryClient client, Func<Dictionary<string, OrderPlaced>, bool> done)
    {
        var latest = new Dictionary<string, OrderPlaced>(StringComparer.Ordinal);
        using IConsumer<string, OrderPlaced> consumer = new ConsumerBuilder<string, OrderPlaced>(_cluster.CreateConsumerConfig("reader-" + Guid.NewGuid().ToString("N")))
            .SetProtobufValueDeserializer(client)
            .Build();
        consumer.Subscribe(topic);
        Wait.Until(() => done(latest), "the aggregates on " + topic, Deadline, poll: () =>
        {
            if (consumer.Consume(TimeSpan.FromMilliseconds(100)) is { IsPartitionEOF: false, Message: { Value: not null } message })
            {
                latest[message.Key] = message.Value;
            }
        });
        return latest;
    }
}
