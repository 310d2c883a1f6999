using System;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Threading.Tasks;
using Confluent.Kafka;
using Confluent.Kafka.Admin;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using KafkaProtobuf.Tool.Commands;
using KafkaProtobuf.Lag;
using Xunit;

namespace KafkaProtobuf.Tests.Tool;

/// <summary><c>kafka-protobuf lag --group G</c> against a group with stored offsets on the embedded cluster: per partition committed, end, lag, owner; totals; JSON.</summary>
public sealed class LagToolTests : IDisposable
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(60);
    private readonly EmbeddedKafkaCluster _cluster = EmbeddedKafkaCluster.Start(1);

    public LagToolTests()
    {
        _cluster.SetGroupInitialRebalanceDelay(TimeSpan.Zero);
        _cluster.CreateTopic("orders", 2);
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(_cluster.CreateProducerConfig()).Build();
        for (int i = 0; i < 10; i++)
        {
            producer.Produce(new TopicPartition("orders", 0), new Message<byte[], byte[]> { Value = [1] });
            producer.Produce(new TopicPartition("orders", 1), new Message<byte[], byte[]> { Value = [2] });
        }

        Assert.Equal(0, producer.Flush(Deadline));
        using IConsumer<byte[], byte[]> committer = new ConsumerBuilder<byte[], byte[]>(_cluster.CreateConsumerConfig("shop")).Build();
        committer.Commit([new TopicPartitionOffset("orders", 0, 4), new TopicPartitionOffset("orders", 1, 10)]);
    }

    public void Dispose() => _cluster.Dispose();

    [Fact]
    public async Task AGroupsLag_PerPartition_WithTheTotal()
    {
        (int exit, string output, string error) = await Run("lag", "-b", _cluster.BootstrapServers, "--group", "shop");

        Assert.True(exit == ExitCodes.Ok, error); // every topic the group committed to, found without --topic
        Assert.Equal(
            "TOPIC\tPARTITION\tCOMMITTED\tEND\tLAG\tOWNER\n"
            + "orders\t0\t4\t10\t6\t-\n"
            + "orders\t1\t10\t10\t0\t-\n"
            + "total lag 6 over 2 partitions\n",
            output);
    }

    [Fact]
    public async Task Json_AndATopicWithoutCommits_AndOwnersSaidUnknown_WhereTheBrokersCannotDescribeTheGroup()
    {
        _cluster.CreateTopic("payments", 1);
        ConsumerConfig member = _cluster.CreateConsumerConfig("shop");
        member.ClientId = "payments-service";
        using IConsumer<byte[], byte[]> consumer = new ConsumerBuilder<byte[], byte[]>(member).Build();
        consumer.Subscribe(["orders"]);
        Wait.Until(() => consumer.Assignment.Count == 2, "the member assigned both partitions", Deadline, () => consumer.Consume(TimeSpan.FromMilliseconds(50)));

        (int exit, string output, string error) = await Run("lag", "-b", _cluster.BootstrapServers, "-g", "shop", "-t", "orders", "-t", "payments", "--output", "json");

        Assert.True(exit == ExitCodes.Ok, error);
        using JsonDocument json = JsonDocument.Parse(output);
        Assert.Equal(1, json.RootElement.GetProperty("format").GetInt32());
        Assert.Equal("shop", json.RootElement.GetProperty("group").GetString());
        JsonElement[] partitions = json.RootElement.GetProperty("partitions").EnumerateArray().ToArray();
        Assert.Equal(["orders/0", "orders/1", "payments/0"], partitions.Select(p => p.GetProperty("topic").GetString() + "/" + p.GetProperty("partition").GetInt32()));
        Assert.Equal(JsonValueKind.Null, partitions[2].GetProperty("committed").ValueKind); // nothing committed there: no lag counted
        Assert.Equal(JsonValueKind.Null, partitions[2].GetProperty("lag").ValueKind);
        Assert.Equal(6, json.RootElement.GetProperty("totalLag").GetInt64());

        // librdkafka's mock cluster does not describe groups (DescribeGroups): the owners are left out, and said so.
        Assert.All(partitions, p => Assert.Equal(JsonValueKind.Null, p.GetProperty("owner").ValueKind));
        Assert.Contains("owners not shown, the brokers did not describe the group", error, StringComparison.Ordinal);
    }

    [Fact]
    public void Owners_AreEachAssignedPartitionsMember_AsClientIdAndHost()
    {
        // librdkafka's mock cluster describes no group (classic or KIP-848), so what the brokers' answer becomes is pinned here.
        var described = new ConsumerGroupDescription
        {
            GroupId = "shop",
            Members =
            [
                new MemberDescription { ClientId = "orders-service", Host = "/10.0.0.7", Assignment = new MemberAssignment { TopicPartitions = [new TopicPartition("orders", 0), new TopicPartition("payments", 0)] } },
                new MemberDescription { ClientId = "orders-service", Host = "/10.0.0.8", Assignment = new MemberAssignment { TopicPartitions = [new TopicPartition("orders", 1)] } },
                new MemberDescription { ClientId = "joining", Host = "/10.0.0.9", Assignment = null }, // not assigned yet
            ],
        };

        var owners = ConsumerGroupLag.OwnersOf([described]);

        Assert.Equal(3, owners.Count);
        Assert.Equal("orders-service /10.0.0.7", owners[new TopicPartition("orders", 0)]);
        Assert.Equal("orders-service /10.0.0.7", owners[new TopicPartition("payments", 0)]);
        Assert.Equal("orders-service /10.0.0.8", owners[new TopicPartition("orders", 1)]);
    }

    [Fact]
    public async Task AGroupWithoutCommits_IsSaidToBeUnknownOrNew_AndAnEmptyGroupIsAUsageError()
    {
        (int exit, string output, string error) = await Run("lag", "-b", _cluster.BootstrapServers, "--group", "shpo");

        Assert.True(exit == ExitCodes.Ok, error);
        Assert.EndsWith("total lag 0 over 0 partitions\n", output, StringComparison.Ordinal);
        Assert.Contains("group 'shpo' has no committed offsets: no such group (check its name), or it has not committed yet", error, StringComparison.Ordinal);

        (exit, _, error) = await Run("lag", "-b", _cluster.BootstrapServers, "--group", "shop");
        Assert.Equal(ExitCodes.Ok, exit);
        Assert.DoesNotContain("no committed offsets", error, StringComparison.Ordinal);

        (exit, _, error) = await Run("lag", "-b", _cluster.BootstrapServers, "--group", "");
        Assert.Equal(ExitCodes.Usage, exit);
        Assert.Contains("--group is empty", error, StringComparison.Ordinal);
        Assert.DoesNotContain("redirect the poll queue", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AMissingTopic_IsSaid()
    {
        (int exit, _, string error) = await Run("lag", "-b", _cluster.BootstrapServers, "-g", "shop", "-t", "nowhere");

        Assert.Equal(ExitCodes.ConnectionFailure, exit);
        Assert.Contains("nowhere", error, StringComparison.Ordinal);
    }

    private static Task<(int Exit, string Output, string Error)> Run(params string[] args) => InProcessTool.RunAsync(args);
}
