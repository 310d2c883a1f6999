using System;
using System.Linq;
using System.Net.Http;
using System.Net.Http.Json;
using System.Threading;
using System.Threading.Tasks;
using Aspire.Hosting;
using Aspire.Hosting.ApplicationModel;
using Confluent.Kafka;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Tests.Shared;
using Microsoft.Extensions.DependencyInjection;
using KafkaProtobuf.Redrive;
using Xunit;

namespace KafkaProtobuf.Aspire.Tests;

/// <summary>
/// Both integrations together, as a user runs them: the test AppHost's Kafka and registry resources, and its service
/// reading them with KafkaProtobuf.Aspire. Observed as users observe it: the service's HTTP API, its health, the
/// topics, the registry's answers, the dashboard's commands.
/// </summary>
public sealed class AppHostTests(AppHostFixture host) : IClassFixture<AppHostFixture>
{
    private const string OrderProto = "syntax = \"proto3\";\npackage orders.v1;\noption csharp_namespace = \"Orders.V1\";\n\nmessage OrderPlaced {\n  string order_id = 1;\n  {0}\n}\n";

    [Fact]
    public async Task TheService_IsHealthy_AndHandlesARecordItsProducerWroteThroughTheRegistry()
    {
        string id = "order-" + Guid.NewGuid().ToString("N")[..8];
        using HttpResponseMessage written = await host.Service.PostAsync("/orders/" + id, null);
        Assert.True(written.IsSuccessStatusCode, "POST /orders: " + written.StatusCode);

        await Eventually(async () => (await host.Service.GetFromJsonAsync<string[]>("/handled"))!.Contains(id), "the service to handle " + id);
        using var registry = new RegistryClient(host.RegistryUrl);
        RegistrySchema latest = await registry.GetLatestVersionAsync("orders-value");
        Assert.Contains("OrderPlaced", (await registry.GetFileAsync(SchemaIdentifier.FromId(latest.Id!.Value))).MessageTypes.Select(m => m.Name));
        Assert.Equal(System.Net.HttpStatusCode.OK, (await host.Service.GetAsync("/health")).StatusCode);
    }

    [Fact]
    public async Task AnIncompatibleSchema_IsRefusedWith409_ThroughTheRegistrysConnectionString()
    {
        using var registry = new RegistryClient(host.RegistryUrl);
        string changedType = OrderProto.Replace("{0}", "string cents = 2;", StringComparison.Ordinal);
        SchemaRegistryRequestException refused = await Assert.ThrowsAsync<SchemaRegistryRequestException>(
            () => registry.RegisterAsync("orders-value", changedType, "PROTOBUF", [], normalize: false));
        Assert.Equal(409, refused.StatusCode);
    }

    [Fact]
    public async Task CheckProto_ListsTheIncompatibleDifference_AndPassesAnAddedField()
    {
        ExecuteCommandResult incompatible = await Run("registry", "kafkaprotobuf-check-proto",
            ("subject", "orders-value"), ("proto", OrderProto.Replace("{0}", "string cents = 2;", StringComparison.Ordinal)));
        Assert.False(incompatible.Success);
        Assert.Matches("^Not compatible with 'orders-value' at BACKWARD \\([12] versions?\\): 1 incompatible difference\\(s\\)\\.$", incompatible.Message);
        Assert.Contains("INCOMPATIBLE", incompatible.Data!.Value, StringComparison.Ordinal);
        Assert.Contains("FIELD_SCALAR_KIND_CHANGED", incompatible.Data.Value, StringComparison.Ordinal);

        ExecuteCommandResult compatible = await Run("registry", "kafkaprotobuf-check-proto",
            ("subject", "orders-value"), ("proto", OrderProto.Replace("{0}", "int64 cents = 2;\n  string note = 3;", StringComparison.Ordinal)));
        Assert.True(compatible.Success, compatible.Message);
        Assert.Matches("^Compatible with 'orders-value' at BACKWARD \\([12] versions?\\)\\.$", compatible.Message);
    }

    [Fact]
    public async Task APoisonRecord_IsDeadLettered_ListedByTheDashboard_AndRedrivenOnlyAfterThatDryRun()
    {
        var config = new ProducerConfig { BootstrapServers = host.BootstrapServers };
        string key = "poison-" + Guid.NewGuid().ToString("N")[..8];
        using (IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(config).Build())
        {
            await producer.ProduceAsync("orders", new Message<byte[], byte[]> { Key = System.Text.Encoding.UTF8.GetBytes(key), Value = [0x07, 0x00, 0x01] }).WaitAsync(AppHostFixture.Timeout);
        }

        await Eventually(() => Task.FromResult(DeadLetterKeys().Contains(key)), "the poison record in orders.dlq");

        ExecuteCommandResult unlisted = await Run("kafka", "kafkaprotobuf-redrive-dead-letters", ("topic", "orders.dlq"));
        Assert.False(unlisted.Success);
        Assert.Contains("Run \"Dead letters\" on it (the dry run) first.", unlisted.Message, StringComparison.Ordinal); // no plan, or the last one completed
        long dlqBefore = EndOf("orders.dlq");

        ExecuteCommandResult listed = await Run("kafka", "kafkaprotobuf-dead-letters", ("topic", "orders.dlq"));
        Assert.True(listed.Success, listed.Message);
        Assert.StartsWith("'orders.dlq': ", listed.Message, StringComparison.Ordinal);
        Assert.Contains("from orders [", listed.Data!.Value, StringComparison.Ordinal);
        Assert.Contains("(value)  → would write", listed.Data.Value, StringComparison.Ordinal);
        Assert.Contains("The newest ", listed.Data.Value, StringComparison.Ordinal);
        Assert.Equal(dlqBefore, EndOf("orders.dlq")); // a dry run writes nothing

        long ordersBefore = EndOf("orders");
        ExecuteCommandResult redriven = await Run("kafka", "kafkaprotobuf-redrive-dead-letters", ("topic", "orders.dlq"));
        Assert.True(redriven.Success, redriven.Message);
        Assert.StartsWith("Redrive of 'orders.dlq': written ", redriven.Message, StringComparison.Ordinal);
        Assert.True(EndOf("orders") > ordersBefore, "the redrive wrote the poison record back to orders");

        ExecuteCommandResult again = await Run("kafka", "kafkaprotobuf-redrive-dead-letters", ("topic", "orders.dlq"));
        Assert.False(again.Success); // one dry run, one redrive
    }

    [Fact]
    public async Task ARecordWhoseOwnHeadersNameAnotherSource_IsListedAndRedrivenByItsRealSource()
    {
        var config = new ProducerConfig { BootstrapServers = host.BootstrapServers };
        string key = "forged-" + Guid.NewGuid().ToString("N")[..8];
        using (IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(config).Build())
        {
            await producer.ProduceAsync("orders", new Message<byte[], byte[]> { Key = System.Text.Encoding.UTF8.GetBytes(key), Value = [0x07, 0x00, 0x01], Headers = ForgedSourceRecord.Headers() }).WaitAsync(AppHostFixture.Timeout);
        }

        await Eventually(() => Task.FromResult(DeadLetterKeys().Contains(key)), "the forged poison record in orders.dlq");
        ExecuteCommandResult listed = await Run("kafka", "kafkaprotobuf-dead-letters", ("topic", "orders.dlq"));
        Assert.True(listed.Success, listed.Message);
        Assert.DoesNotContain("'payments'", listed.Data!.Value, StringComparison.Ordinal);
        Assert.DoesNotContain("orders [7]", listed.Data.Value, StringComparison.Ordinal); // the forged partition (orders has 3)
        Assert.Contains("from orders [", listed.Data.Value, StringComparison.Ordinal);

        var before = ForgedSourceRecord.Counts(host.BootstrapServers, "orders", "orders.dlq", ForgedSourceRecord.ForgedTopic);
        ExecuteCommandResult redriven = await Run("kafka", "kafkaprotobuf-redrive-dead-letters", ("topic", "orders.dlq"));
        Assert.True(redriven.Success, redriven.Message);
        var after = ForgedSourceRecord.Counts(host.BootstrapServers, "orders", "orders.dlq", ForgedSourceRecord.ForgedTopic);
        long written = after["orders"] - before["orders"];
        Assert.True(
            after[ForgedSourceRecord.ForgedTopic] == 0 && written > 0,
            redriven.Message + "; before: " + ForgedSourceRecord.Describe(before) + "; after: " + ForgedSourceRecord.Describe(after));

        // Still poison, the records written back are dead-lettered again, into orders.dlq (never payments): wait for them
        // all, so that no other test sees the topic grow under it.
        await Eventually(() => Task.FromResult(EndOf("orders.dlq") >= before["orders.dlq"] + written), "the redriven poison records dead-lettered again");
        Assert.Equal(0, ForgedSourceRecord.Counts(host.BootstrapServers, ForgedSourceRecord.ForgedTopic)[ForgedSourceRecord.ForgedTopic]);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task EveryRow_IsListedAsItsLastColumn_AndTheDashboardsRedriveWritesOnlyWhatIsBelieved(bool withKeys)
    {
        // The dashboard reads with the flow's keys (the AppHost's configuration); the unsigned rows' writer had none.
        string prefix = withKeys ? "dash-signed-" : "dash-unsigned-", topic = prefix + "rows.dlq";
        var rows = ProvenanceRows.WriteAndDeadLetter(host.BootstrapServers, (_, _) => { }, prefix, topic, withKeys); // the AppHost made the topics

        ExecuteCommandResult listed = await Run("kafka", "kafkaprotobuf-dead-letters", ("topic", topic));
        Assert.True(listed.Success, listed.Message);
        string[] lines = listed.Data!.Value.Split('\n');
        foreach (ProvenanceRows.Row row in rows)
        {
            string line = lines.Single(l => l.StartsWith("  offset " + row.Position.Offset.Value + "  ", StringComparison.Ordinal));
            Assert.True(
                row.Source is null ? line.Contains("from not believed: ", StringComparison.Ordinal) && line.EndsWith("skipped: its source is not believed", StringComparison.Ordinal)
                    : line.Contains("from " + row.Source + "  ", StringComparison.Ordinal),
                row.Name + ": " + line);
        }

        var before = ProvenanceRows.Counts(host.BootstrapServers, ProvenanceRows.Topics(prefix));
        ExecuteCommandResult redriven = await Run("kafka", "kafkaprotobuf-redrive-dead-letters", ("topic", topic));
        var after = ProvenanceRows.Counts(host.BootstrapServers, ProvenanceRows.Topics(prefix));

        Assert.True(redriven.Success, redriven.Message);
        Assert.Contains("written " + rows.Count(r => r.Written) + ",", redriven.Message, StringComparison.Ordinal);
        Assert.Contains("skipped unverified " + rows.Count(r => r.Source is null) + ",", redriven.Message, StringComparison.Ordinal);
        Assert.Null(ProvenanceRows.Difference(before, after, prefix, rows, keptPartitions: false));

        ExecuteCommandResult again = await Run("kafka", "kafkaprotobuf-redrive-dead-letters", ("topic", topic));
        Assert.False(again.Success);
        Assert.Contains(RedriveOutcomes.Describe(RedriveRefusal.Completed), again.Message, StringComparison.Ordinal); // the library's wording
    }

    [Fact]
    public async Task GroupLag_ShowsTheServicesGroupOnItsTopic()
    {
        using HttpResponseMessage written = await host.Service.PostAsync("/orders/lag-" + Guid.NewGuid().ToString("N")[..8], null);
        Assert.True(written.IsSuccessStatusCode);
        ExecuteCommandResult? lag = null;
        await Eventually(async () =>
        {
            lag = await Run("kafka", "kafkaprotobuf-group-lag", ("group", "orders"));
            return lag.Success && lag.Data!.Value.Split('\n').Any(line => line.StartsWith("orders\t", StringComparison.Ordinal));
        }, "the group's committed offsets on orders");
        Assert.StartsWith("Group 'orders': total lag ", lag!.Message, StringComparison.Ordinal);
        Assert.StartsWith("TOPIC\tPARTITION\tCOMMITTED\tEND\tLAG\tOWNER\n", lag.Data!.Value, StringComparison.Ordinal);
        Assert.DoesNotContain("no committed offsets", lag.Message, StringComparison.Ordinal);

        ExecuteCommandResult mistyped = await Run("kafka", "kafkaprotobuf-group-lag", ("group", "ordres"));
        Assert.True(mistyped.Success, mistyped.Message);
        Assert.EndsWith("It has no committed offsets: no such group, or it has not committed yet.", mistyped.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TheResources_AreRunningAndHealthy_WithTheirConnectionStrings()
    {
        await host.App.ResourceNotifications.WaitForResourceHealthyAsync("kafka").WaitAsync(AppHostFixture.Timeout);
        await host.App.ResourceNotifications.WaitForResourceHealthyAsync("registry").WaitAsync(AppHostFixture.Timeout);
        Assert.Matches("^127\\.0\\.0\\.1:[0-9]+$", host.BootstrapServers);
        Assert.Matches("^http://127\\.0\\.0\\.1:[0-9]+/?$", host.RegistryUrl);
    }

    /// <summary>The keys of every record in orders.dlq now.</summary>
    private System.Collections.Generic.HashSet<string> DeadLetterKeys()
    {
        using IConsumer<byte[], byte[]> consumer = new ConsumerBuilder<byte[], byte[]>(new ConsumerConfig { BootstrapServers = host.BootstrapServers, GroupId = "dead-letter-keys", EnablePartitionEof = true }).Build();
        var keys = new System.Collections.Generic.HashSet<string>(StringComparer.Ordinal);
        consumer.Assign(new TopicPartitionOffset("orders.dlq", 0, Offset.Beginning));
        using var timeout = new CancellationTokenSource(AppHostFixture.Timeout);
        while (consumer.Consume(timeout.Token) is { } record && !record.IsPartitionEOF)
        {
            keys.Add(record.Message.Key is null ? string.Empty : System.Text.Encoding.UTF8.GetString(record.Message.Key));
        }

        return keys;
    }

    private long EndOf(string topic)
    {
        using IConsumer<byte[], byte[]> consumer = new ConsumerBuilder<byte[], byte[]>(new ConsumerConfig { BootstrapServers = host.BootstrapServers, GroupId = "watermarks" }).Build();
        int partitions = topic == "orders" ? 3 : 1;
        return Enumerable.Range(0, partitions).Sum(p => consumer.QueryWatermarkOffsets(new TopicPartition(topic, p), TimeSpan.FromSeconds(30)).High.Value);
    }

    private async Task<ExecuteCommandResult> Run(string resource, string command, params (string Name, string Value)[] arguments)
    {
        ResourceCommandService commands = host.App.Services.GetRequiredService<ResourceCommandService>();
        var inputs = new InteractionInputCollection(arguments.Select(a => new InteractionInput { Name = a.Name, InputType = InputType.Text, Value = a.Value }).ToList());
        using var timeout = new CancellationTokenSource(AppHostFixture.Timeout);
        return await commands.ExecuteCommandAsync(resource, command, inputs, timeout.Token);
    }

    private static async Task Eventually(Func<Task<bool>> condition, string what)
    {
        using var timeout = new CancellationTokenSource(AppHostFixture.Timeout);
        while (!await condition())
        {
            if (timeout.IsCancellationRequested)
            {
                Assert.Fail("Waited in vain for " + what + ".");
            }

            await Task.Delay(200, CancellationToken.None);
        }
    }
}
