using System;
using System.Linq;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Batching;
using KafkaProtobuf.Hosting.Handling;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting.Batching;

/// <summary>
/// What a batch knows of its records: where it is read again from after its conclusion stopped part way, where each
/// partition's offset is stored, the records left when a partition is revoked, what its handler sees of a retry
/// topic's record, its description, and the stand-ins for a poison record and a record that already failed.
/// </summary>
public sealed class RecordBatchTests
{
    private static ConsumeResult<string, string> Record(int partition, long offset, string? key = "k", string topic = "orders") => new()
    {
        TopicPartitionOffset = new TopicPartitionOffset(topic, partition, offset),
        Message = new Message<string, string> { Key = key!, Value = "v" + offset },
    };

    private static void Add(RecordBatch<string, string> batch, ConsumeResult<string, string> record, ConsumeResult<string, string>? handlerView = null) =>
        batch.Add(record, handlerView ?? record, Encoding.UTF8.GetBytes(record.Message.Key ?? string.Empty), record.Message.Key is null, Encoding.UTF8.GetBytes(record.Message.Value), false);

    /// <summary>Partition 0 @10, 1 @20, 0 @11, 2 @30, 1 @21: a batch across partitions.</summary>
    private static RecordBatch<string, string> Across()
    {
        var batch = new RecordBatch<string, string>(5);
        foreach ((int partition, long offset) in new[] { (0, 10L), (1, 20L), (0, 11L), (2, 30L), (1, 21L) })
        {
            Add(batch, Record(partition, offset));
        }

        return batch;
    }

    private static string[] Text(System.Collections.Generic.IEnumerable<TopicPartitionOffset> positions) => [.. positions.Select(p => p.Partition.Value + "@" + p.Offset.Value)];

    [Fact]
    public void TheLastRecordOfEachPartition_IsWhereItsOffsetIsStored_TheLastFirst() =>
        Assert.Equal(["1@21", "2@30", "0@11"], Text(Across().LastOfEachPartition().Select(r => r.TopicPartitionOffset)));

    [Fact]
    public void AConclusionStoppedPartWay_ReadsAgainEachPartitionFromItsFirstRecordFromThere()
    {
        RecordBatch<string, string> batch = Across();

        batch.ReadAgainAt(2); // 0@11 failed to conclude: it and everything after it is read again

        Assert.Equal(["0@11", "2@30", "1@21"], Text(batch.ReadAgainPositions()));
        Assert.Equal(new TopicPartitionOffset("orders", 0, 11), batch.ReadAgainFrom);
    }

    [Fact]
    public void BeforeAnyStop_ReadAgainFrom_IsTheBatchsFirstRecord()
    {
        RecordBatch<string, string> batch = Across();

        Assert.Equal(new TopicPartitionOffset("orders", 0, 10), batch.ReadAgainFrom);
        Assert.Equal(["0@10", "1@20", "2@30"], Text(batch.ReadAgainPositions()));
    }

    [Fact]
    public void WithoutARevokedPartition_TheRestKeepTheirOrderAndBytes_AndTheOldBatchGivesItsBytesBack()
    {
        RecordBatch<string, string> batch = Across();
        batch.DueAt = TimeSpan.FromSeconds(7);

        RecordBatch<string, string> rest = batch.Without(new TopicPartition("orders", 0));

        Assert.Equal(0, batch.ByteCount);
        Assert.Equal(["1@20", "2@30", "1@21"], Text(rest.Select(r => r.TopicPartitionOffset)));
        Assert.Equal(TimeSpan.FromSeconds(7), rest.DueAt);
        Assert.Equal("v30", Encoding.UTF8.GetString(rest.BytesOf(1).Value!));
        Assert.False(rest.Holds("orders", 0));
        Assert.True(rest.Holds("orders", 2));
        Assert.Equal(new TopicPartitionOffset("orders", 1, 20), rest.Position);
    }

    [Fact]
    public void APartitionOfTheSameNumberInAnotherTopic_IsNotRevokedWithIt()
    {
        var batch = new RecordBatch<string, string>(2);
        Add(batch, Record(0, 1));
        Add(batch, Record(0, 1, topic: "payments"));

        RecordBatch<string, string> rest = batch.Without(new TopicPartition("orders", 0));

        Assert.Equal("payments", Assert.Single(rest).Topic);
    }

    [Fact]
    public void TheHandlerSeesARetryTopicsRecordAsFirstRead_TheBatchKeepsWhereItWasRead()
    {
        var batch = new RecordBatch<string, string>(3);
        ConsumeResult<string, string> retried = Record(0, 5, topic: "orders.retry-1");
        ConsumeResult<string, string> asFirstRead = Record(3, 77);
        Add(batch, Record(0, 4, topic: "orders.retry-1"));
        Add(batch, retried, asFirstRead);
        Add(batch, Record(0, 6, topic: "orders.retry-1"));

        Assert.Same(asFirstRead, batch.ForHandler[1]);
        Assert.Same(batch[0], batch.ForHandler[0]); // the others as read
        Assert.Same(retried, batch[1]);
        Assert.Equal(new TopicPartitionOffset("orders.retry-1", 0, 4), batch.Position);
    }

    [Fact]
    public void WithoutARetryTopicsRecord_TheHandlerSeesTheBatchItself()
    {
        RecordBatch<string, string> batch = Across();

        Assert.Same(batch, batch.ForHandler); // no list of views is made
    }

    [Fact]
    public void BytesOf_GivesEachRecordsKeyAndValueAsWritten_NullKeysAsNull()
    {
        var batch = new RecordBatch<string, string>(2);
        Add(batch, Record(0, 1, key: null));
        Add(batch, Record(0, 2, key: "k2"));

        Assert.Equal((null, "v1"), Strings(batch.BytesOf(0)));
        Assert.Equal(("k2", "v2"), Strings(batch.BytesOf(1)));
        Assert.Equal(6, batch.ByteCount); // "v1", "k2", "v2"
    }

    private static (string? Key, string? Value) Strings((byte[]? Key, byte[]? Value) bytes) =>
        (bytes.Key is null ? null : Encoding.UTF8.GetString(bytes.Key), bytes.Value is null ? null : Encoding.UTF8.GetString(bytes.Value));

    [Fact]
    public void Describe_SaysWhereTheBatchIs()
    {
        var one = new RecordBatch<string, string>(1);
        Add(one, Record(3, 100));
        var range = new RecordBatch<string, string>(3);
        foreach (long offset in new[] { 100L, 101, 199 })
        {
            Add(range, Record(3, offset));
        }

        Assert.Equal("orders [3] @100", one.Describe());
        Assert.Equal("orders [3] @100..199 (3 records)", range.Describe());
        Assert.Equal("a batch of 5 records from several partitions, from orders [0] @10", Across().Describe());
    }

    [Fact]
    public void APoisonRecordsStandIn_IsPlacedAtItsOffset_AndNeverGoesToTheHandler()
    {
        var raw = new ConsumeResult<byte[], byte[]> { TopicPartitionOffset = new TopicPartitionOffset("orders", 2, 40), Message = new Message<byte[], byte[]> { Value = [1, 2] } };
        var poison = new ConsumeException(raw, new Error(ErrorCode.Local_ValueDeserialization, "bad frame"));

        RecordBatch<string, string> standIn = RecordBatch<string, string>.OfPoison(poison);

        Assert.Same(poison, standIn.Poison);
        Assert.Empty(standIn);
        Assert.Equal(new TopicPartitionOffset("orders", 2, 40), standIn.Position);
        Assert.False(standIn.NeedsHandler);
        Assert.Equal("orders [2] @40", standIn.Describe());
    }

    [Fact]
    public void AFailedRecordsStandIn_CarriesItsFailure_AndNeverGoesToTheHandlerAgain()
    {
        var failure = new HandlerResult(HandlerOutcome.DeadLetter, new InvalidOperationException("failed before"));
        ConsumeResult<string, string> record = Record(1, 9);

        RecordBatch<string, string> standIn = RecordBatch<string, string>.OfFailed(record, record, "k"u8, false, "v9"u8, false, failure);

        Assert.False(standIn.NeedsHandler);
        Assert.Equal(HandlerOutcome.DeadLetter, standIn.ResultOf(0).Outcome);
        Assert.Equal("failed before", standIn.ResultOf(0).Failure!.Message);
        Assert.Equal(("k", "v9"), Strings(standIn.BytesOf(0)));
    }
}
