using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Health;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>What the health check says, word for word, for each state a consumer can be in (no cluster: the states are set by hand).</summary>
public sealed class HealthCheckTextTests
{
    private static async Task<HealthCheckResult> Check(KafkaProtobufConsumerStates states)
    {
        var check = new KafkaProtobufConsumersHealthCheck(states);
        return await check.CheckHealthAsync(new HealthCheckContext { Registration = new HealthCheckRegistration("kafkaprotobuf-consumers", check, null, null) });
    }

    [Theory]
    [InlineData(1, "orders's handler has failed once on a record")]
    [InlineData(2, "orders's handler has failed twice on a record")]
    [InlineData(5, "orders's handler has failed 5 times on a record")]
    public async Task AHandlerFailingOnARecord_IsCountedInWords(int attempts, string expected)
    {
        var states = new KafkaProtobufConsumerStates();
        ConsumerStatus orders = states.For("orders");
        orders.Running();
        orders.HandlerFailed(attempts, new System.InvalidOperationException("the store is down"));

        HealthCheckResult result = await Check(states);

        Assert.Equal(HealthStatus.Degraded, result.Status);
        Assert.Equal(expected, result.Description);
    }

    [Fact]
    public async Task APartitionWaiting_ForItsSchemaOrToWriteADeadLetter_KeepsTheConsumerDegraded_WhileOtherPartitionsRecordsAreDone_UntilOneOfItsOwnIs()
    {
        var states = new KafkaProtobufConsumerStates();
        ConsumerStatus orders = states.For("orders");
        orders.Running();
        orders.Waits(new TopicPartition("orders", 3), "obtain a writer's schema", "no answer within 2000 ms");
        orders.Waits(new TopicPartition("orders", 1), "obtain a writer's schema", "no answer within 2000 ms");
        orders.Waits(new TopicPartition("orders", 5), "write to 'orders.dlq'", "Local_MsgTimedOut");
        orders.RecordDone("orders", 0);
        orders.RecordDone("orders", 2);
        HealthCheckResult whileOthersFlow = await Check(states);
        orders.RecordDone("orders", 3);
        orders.RecordDone("orders", 5);
        HealthCheckResult oneLeft = await Check(states);
        orders.Revoked([new TopicPartition("orders", 1)]);

        HealthCheckResult healthy = await Check(states);

        Assert.Equal(HealthStatus.Degraded, whileOthersFlow.Status);
        Assert.Equal("orders cannot obtain a writer's schema for orders [1], orders [3] (no answer within 2000 ms); orders cannot write to 'orders.dlq' for orders [5] (Local_MsgTimedOut)", whileOthersFlow.Description);
        Assert.Equal("orders cannot obtain a writer's schema for orders [1] (no answer within 2000 ms)", oneLeft.Description);
        Assert.Equal(HealthStatus.Healthy, healthy.Status);
    }

    [Fact]
    public async Task AFailedConsumer_SaysWhy_AndARecordDoneClearsTheFailures()
    {
        var states = new KafkaProtobufConsumerStates();
        ConsumerStatus orders = states.For("orders");
        orders.Running();
        orders.HandlerFailed(3, new System.InvalidOperationException("the store is down"));
        orders.RecordDone("orders", 0);
        HealthCheckResult healthy = await Check(states);
        orders.Failed("the ledger is closed");

        HealthCheckResult failed = await Check(states);

        Assert.Equal(HealthStatus.Healthy, healthy.Status);
        Assert.Equal(HealthStatus.Unhealthy, failed.Status);
        Assert.Equal("orders failed: the ledger is closed", failed.Description);
    }
}
