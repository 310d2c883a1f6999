using Confluent.Kafka;
using KafkaProtobuf.Hosting.Diagnostics;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>The partitions a rebalance log line names: an incremental (cooperative) rebalance may assign or revoke none.</summary>
public sealed class PartitionListTests
{
    [Fact]
    public void Partitions_AreWrittenAsEveryMessageWritesThem_AndNoneIsSaid()
    {
        Assert.Equal("orders [0], orders [3]", new PartitionList([new TopicPartition("orders", 0), new TopicPartition("orders", 3)]).ToString());
        Assert.Equal("none (an incremental rebalance changed nothing here)", new PartitionList([]).ToString()); // was "partitions assigned: " and nothing
    }
}
