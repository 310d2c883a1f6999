using System;
using Confluent.Kafka;
using KafkaProtobuf.Framing;
using Xunit;

namespace KafkaProtobuf.Tests.Consumer;

/// <summary>
/// The recommended loop's three branches: a bad record (dead-letter it), a record whose schema is unavailable (seek
/// back), and an error that is not a record at all (carry on). Each exception Consume can throw takes at most one.
/// </summary>
public sealed class ConsumeExceptionClassificationTests
{
    private static readonly byte[] Frame = [0, 0, 0, 0, 9, 0];

    private static ConsumeResult<byte[], byte[]> Record() => new()
    {
        TopicPartitionOffset = new TopicPartitionOffset("telemetry", 0, 5),
        Message = new Message<byte[], byte[]> { Value = Frame, Headers = [] },
    };

    /// <summary>What Confluent.Kafka throws for an error librdkafka passes on: the partition and offset, no message.</summary>
    private static ConsumeException ConsumerError(Error error) => new(
        new ConsumeResult<byte[], byte[]> { TopicPartitionOffset = new TopicPartitionOffset("telemetry", 0, 5) }, error);

    public static TheoryData<string, ConsumeException, bool, bool, bool> Cases() => new()
    {
        { "bad frame", new ConsumeException(Record(), new Error(ErrorCode.Local_ValueDeserialization), new InvalidFrameException(new FrameError(FrameErrorCode.UnknownMagicByte, 0, FrameErrorLocation.RecordData, default), MessageComponentType.Value, "telemetry", null)), true, false, false },
        { "schema unavailable", new ConsumeException(Record(), new Error(ErrorCode.Local_ValueDeserialization), new SchemaUnavailableException(SchemaIdentifier.FromId(9), MessageComponentType.Value, "telemetry", new TimeoutException())), false, true, false },
        { "fetch timed out", ConsumerError(new Error(ErrorCode.RequestTimedOut, "Fetch from broker 2 failed at offset 5")), false, false, true },
        { "not leader", ConsumerError(new Error(ErrorCode.NotLeaderForPartition)), false, false, true },
        { "max poll exceeded", ConsumerError(new Error(ErrorCode.Local_MaxPollExceeded)), false, false, true },
        { "fatal", ConsumerError(new Error(ErrorCode.Local_Fatal, "fenced", isFatal: true)), false, false, false },
        { "another deserializer's failure", new ConsumeException(Record(), new Error(ErrorCode.Local_KeyDeserialization), new FormatException("not ours")), true, false, false },
    };

    [Theory]
    [MemberData(nameof(Cases))]
    public void EachConsumeException_TakesAtMostOneBranchOfTheLoop(string what, ConsumeException exception, bool deadLetter, bool seekBack, bool carryOn)
    {
        Assert.True(deadLetter == exception.IsDeserializationFailure(), what + ": IsDeserializationFailure");
        Assert.True(seekBack == exception.IsSchemaUnavailable(), what + ": IsSchemaUnavailable");
        Assert.True(carryOn == exception.IsRecoverableConsumerError(), what + ": IsRecoverableConsumerError");
    }

    [Fact]
    public void NullException_IsRejected() =>
        Assert.Throws<ArgumentNullException>(() => ((ConsumeException)null!).IsRecoverableConsumerError());
}
