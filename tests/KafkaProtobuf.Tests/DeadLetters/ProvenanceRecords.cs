using System;
using System.Linq;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Redrive;

namespace KafkaProtobuf.Tests.DeadLetters;

/// <summary>Records as the provenance tests make them: produced, read, dead-lettered by the library's codec and read back.</summary>
internal static class ProvenanceRecords
{
    public static readonly ProvenanceKeys Keys = new([Key(1)]);
    public static readonly ProvenanceKeys OtherKeys = new([Key(2)]);

    public static byte[] Key(byte seed) => Enumerable.Range(0, 32).Select(i => (byte)((seed * 31) + i)).ToArray();

    public static Headers Headers(params (string Name, string Value)[] headers)
    {
        var result = new Headers();
        foreach ((string name, string value) in headers)
        {
            result.Add(name, Encoding.UTF8.GetBytes(value));
        }

        return result;
    }

    public static ConsumeResult<byte[], byte[]> Consumed(string topic, int partition, long offset, Message<byte[], byte[]> message) =>
        new() { TopicPartitionOffset = new TopicPartitionOffset(topic, partition, offset), Message = message };

    public static ConsumeResult<byte[], byte[]> Produced(string topic, int partition, long offset, Headers headers) =>
        Consumed(topic, partition, offset, new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("k"), Value = [1, 2, 3], Headers = headers });

    /// <summary>The record dead-lettered by a writer with <paramref name="writerKeys"/>, read back by a reader with <paramref name="readerKeys"/>.</summary>
    public static DeadLetter DeadLetterOf(ConsumeResult<byte[], byte[]> read, ProvenanceKeys? writerKeys, RetryTier? readFrom, ProvenanceKeys? readerKeys) =>
        new ProvenanceCodec(readerKeys).Read(Consumed("orders.dlq", 0, 11, new ProvenanceCodec(writerKeys).ToDeadLetterMessage(read, new TimeoutException("slow"), readFrom)));

    public static (string?, int?, long?) SourceOf(DeadLetter letter) => (letter.SourceTopic, letter.SourcePartition, letter.SourceOffset);
}
