using System.Linq;
using Confluent.Kafka;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Health;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// What <see cref="KafkaProtobufConsumerOperations.GetConsumers"/> says of a partition: its position, end and lag when
/// measured, and <see langword="null"/>, never 0, while they are not known (a lag of 0 would look healthy).
/// </summary>
public sealed class ConsumerOperationsSnapshotTests
{
    [Fact]
    public void AMeasuredPartition_HasItsPositionEndAndLag_AnAssignedOneNotYetMeasured_HasNone()
    {
        var states = new KafkaProtobufConsumerStates();
        ConsumerStatus status = states.For("orders");
        status.Describe("shop", ["orders"], "orders.dlq");
        status.Running();
        status.Lag.Measured(
            [new PartitionLag("orders", 0, 5, position: 10, end: 15), new PartitionLag("orders", 2, 0)],
            "member-1",
            [new TopicPartition("orders", 0), new TopicPartition("orders", 1), new TopicPartition("orders", 2)]);

        ConsumerSnapshot consumer = Assert.Single(new KafkaProtobufConsumerOperations(states).GetConsumers());

        Assert.Equal([0, 1, 2], consumer.Partitions.Select(p => p.Partition));
        PartitionSnapshot measured = consumer.Partitions[0];
        Assert.Equal((10L, 15L, 5L), (measured.Position!.Value, measured.End!.Value, measured.Lag!.Value));
        foreach (PartitionSnapshot unknown in consumer.Partitions.Skip(1))
        {
            Assert.Null(unknown.Position);
            Assert.Null(unknown.End);
            Assert.Null(unknown.Lag);
        }

        Assert.Equal(5, consumer.Partitions.Sum(p => p.Lag));
        Assert.Equal("member-1", consumer.MemberId);
    }
}
