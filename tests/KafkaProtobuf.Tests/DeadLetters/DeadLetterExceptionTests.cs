using System;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using Xunit;

namespace KafkaProtobuf.Tests.DeadLetters;

/// <summary>Which failures to write a dead letter a try again can cure, and what the exception says: no cluster needed.</summary>
public sealed class DeadLetterExceptionTests
{
    [Theory]
    [InlineData(ErrorCode.Local_TimedOut, true)]
    [InlineData(ErrorCode.Local_MsgTimedOut, true)]
    [InlineData(ErrorCode.Local_QueueFull, true)]
    [InlineData(ErrorCode.LeaderNotAvailable, true)]
    [InlineData(ErrorCode.NotLeaderForPartition, true)]
    [InlineData(ErrorCode.NotEnoughReplicas, true)]
    [InlineData(ErrorCode.TopicAuthorizationFailed, false)]
    [InlineData(ErrorCode.MsgSizeTooLarge, false)]
    [InlineData(ErrorCode.InvalidRecord, false)]
    public void IsRetriable_OnlyForErrorsATryAgainCanCure(ErrorCode code, bool retriable)
    {
        var record = new TopicPartitionOffset("orders", 3, 41);
        var e = new DeadLetterException(new Error(code, "why"), record, "orders.dlq", null);

        Assert.Equal(retriable, e.IsRetriable);
        Assert.Equal(code, e.Error.Code);
        Assert.Equal(record, e.Record);
        Assert.Equal("orders.dlq", e.DeadLetterTopic);
        Assert.Contains("The dead letter for orders [3] @41 was not written", e.Message, StringComparison.Ordinal); // not Confluent.Kafka's "orders [[3]] @41"
        Assert.False(new DeadLetterException(new Error(code, "fatal", isFatal: true), record, "orders.dlq", null).IsRetriable);
    }
}
