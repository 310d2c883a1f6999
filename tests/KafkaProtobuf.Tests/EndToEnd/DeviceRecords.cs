using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.DeadLetters;
using Vectors.Telemetry.V1;
using Xunit;

namespace KafkaProtobuf.Tests.EndToEnd;

/// <summary>
/// The dead-letter tests' records: good values numbered in their Device id, where a dead letter came from, and reading
/// a dead-letter topic back.
/// </summary>
public static class DeviceRecords
{
    /// <summary>A good value: schema id 2, Device at [1], its sequence number in the id.</summary>
    public static byte[] GoodValue(int sequence) => [0, 0, 0, 0, 2, 2, 2, .. new Device { Id = "device-" + sequence.ToString(CultureInfo.InvariantCulture) }.ToByteArray()];

    /// <summary>The sequence number <see cref="GoodValue"/> wrote.</summary>
    public static int SequenceOf(Device device) => int.Parse(device.Id["device-".Length..], CultureInfo.InvariantCulture);

    /// <summary>The record a dead letter was made from, read from its kafkaprotobuf.source.* headers.</summary>
    public static TopicPartitionOffset SourceOf(Headers deadLetterHeaders)
    {
        string Header(string name) => Encoding.UTF8.GetString(deadLetterHeaders.GetLastBytes(name));
        return new TopicPartitionOffset(
            Header(DeadLetterHeaderNames.SourceTopic),
            int.Parse(Header(DeadLetterHeaderNames.SourcePartition), CultureInfo.InvariantCulture),
            long.Parse(Header(DeadLetterHeaderNames.SourceOffset), CultureInfo.InvariantCulture));
    }

    /// <summary>Every record of a one-partition dead-letter topic, up to its end as it is now.</summary>
    public static List<ConsumeResult<byte[], byte[]>> ReadDeadLetters(ConsumerConfig config, string deadLetterTopic, TimeSpan deadline)
    {
        using IConsumer<byte[], byte[]> reader = new ConsumerBuilder<byte[], byte[]>(config).Build();
        reader.Assign(new TopicPartitionOffset(deadLetterTopic, 0, Offset.Beginning));
        long end = reader.QueryWatermarkOffsets(new TopicPartition(deadLetterTopic, 0), TimeSpan.FromSeconds(10)).High.Value;
        var letters = new List<ConsumeResult<byte[], byte[]>>();
        DateTime until = DateTime.UtcNow + deadline;
        while (letters.Count < end && DateTime.UtcNow < until)
        {
            if (reader.Consume(TimeSpan.FromMilliseconds(100)) is { } letter)
            {
                letters.Add(letter);
            }
        }

        Assert.Equal(end, letters.Count);
        return letters;
    }
}
