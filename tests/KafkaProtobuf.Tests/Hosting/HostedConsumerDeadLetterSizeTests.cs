using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Xunit;
using static KafkaProtobuf.Tests.EndToEnd.DeviceRecords;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// A dead letter is its record plus a bounded budget, whatever the failure says: a poison record whose error message
/// would quote a 250,000-index path, a poison record near librdkafka's default size limit, and a handler failing with a
/// million-character message are each dead-lettered, and the good record behind them handled. Where the producer or
/// topic still refuses a dead letter for its size, the consumer stops naming both sizes and both settings.
/// </summary>
public sealed class HostedConsumerDeadLetterSizeTests() : HostedConsumerTestBase("dead-letter-size")
{
    /// <summary>A frame with a 250,000-index path, then a payload that is not a Device (250,010 bytes in all).</summary>
    private static byte[] LongPathPoison()
    {
        var frame = new List<byte> { 0x00, 0, 0, 0, 2 };
        frame.AddRange(Varint(250_000 * 2)); // zigzag count, as Confluent writes it
        frame.AddRange(Enumerable.Repeat((byte)0, 250_000));
        frame.AddRange([0x0a, 0x05, 0x61]); // field 1, 5 bytes declared, 1 there
        return [.. frame];

        static IEnumerable<byte> Varint(uint value)
        {
            while (value >= 0x80)
            {
                yield return (byte)(value | 0x80);
                value >>= 7;
            }

            yield return (byte)value;
        }
    }

    private void Produce(string topic, params byte[][] values)
    {
        Cluster.CreateTopic(topic, 1);
        Cluster.CreateTopic(topic + ".dlq", 1);
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(new ProducerConfig(Cluster.CreateProducerConfig()) { MessageMaxBytes = 10_000_000 }).Build();
        foreach (byte[] value in values)
        {
            producer.Produce(new TopicPartition(topic, 0), new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("k"), Value = value });
        }

        Assert.Equal(0, producer.Flush(Deadline));
    }

    private static long SizeOf(Message<byte[], byte[]> message) =>
        (message.Key?.LongLength ?? 0) + (message.Value?.LongLength ?? 0) + (message.Headers ?? []).Sum(h => (long)Encoding.UTF8.GetByteCount(h.Key) + h.GetValueBytes().Length);

    [Fact]
    public async Task PoisonAndFailingRecordsWhoseFailuresAreHuge_AreDeadLetteredWithinTheBudget_AndTheRecordBehindThemIsHandled()
    {
        byte[] longPath = LongPathPoison();
        byte[] nearTheLimit = Encoding.UTF8.GetBytes("{\"blob\":\"" + new string('x', 999_000) + "\"}"); // JSON: UnknownMagicByte
        Produce("huge-failures", longPath, nearTheLimit, GoodValue(1), GoodValue(2));
        var handled = new ConcurrentQueue<string>();
        using IHost host = StartHost("devices", "huge-failures", (record, _) =>
        {
            if (record.Message.Value.Id == "device-1")
            {
                throw new InvalidOperationException(new string('m', 1_000_000));
            }

            handled.Enqueue(record.Message.Value.Id);
            return Task.CompletedTask;
        }, options => options.HandlerFailures.MaxAttempts = 1);

        Wait.Until(() => handled.Contains("device-2"), "the good record behind the failures handled", Deadline);
        List<ConsumeResult<byte[], byte[]>> letters = ReadDeadLetters(Cluster.CreateConsumerConfig(), "huge-failures.dlq", Deadline);
        await host.StopAsync().WaitAsync(Deadline);

        Assert.Equal([0L, 1, 2], letters.Select(l => SourceOf(l.Message.Headers).Offset.Value));
        Assert.Equal(longPath, letters[0].Message.Value); // byte for byte
        Assert.Equal(nearTheLimit, letters[1].Message.Value);
        Assert.Equal(GoodValue(1), letters[2].Message.Value);
        int[] recordSizes = [longPath.Length + 1, nearTheLimit.Length + 1, GoodValue(1).Length + 1]; // the key "k" too
        for (int i = 0; i < 3; i++)
        {
            Assert.InRange(SizeOf(letters[i].Message) - recordSizes[i], 1, DeadLetterMessages.MaxAddedBytes);
            Assert.All(letters[i].Message.Headers.Where(h => h.Key.StartsWith("kafkaprotobuf.", StringComparison.Ordinal)), h => Assert.InRange(h.GetValueBytes().Length, 1, DeadLetterMessages.MaxHeaderValueBytes));
        }

        string pathMessage = Encoding.UTF8.GetString(letters[0].Message.Headers.GetLastBytes(DeadLetterHeaderNames.ErrorMessage));
        Assert.Contains("… 250,000 indexes in all]", pathMessage, StringComparison.Ordinal); // the path is shown, not quoted whole
        string handlerMessage = Encoding.UTF8.GetString(letters[2].Message.Headers.GetLastBytes(DeadLetterHeaderNames.ErrorMessage));
        Assert.EndsWith("… [cut: 1,000,000 bytes in all]", handlerMessage, StringComparison.Ordinal);
        Assert.Equal(["device-2"], handled);
    }

    [Fact]
    public async Task ADeadLetterTheProducerStillRefusesForItsSize_StopsTheConsumer_NamingBothSizesAndBothSettings()
    {
        byte[] big = Encoding.UTF8.GetBytes("{\"blob\":\"" + new string('x', 300_000) + "\"}");
        Produce("too-big", big, GoodValue(1));
        var handled = new ConcurrentQueue<string>();
        using IHost host = StartHost("devices", "too-big", (record, _) =>
        {
            handled.Enqueue(record.Message.Value.Id);
            return Task.CompletedTask;
        }, options =>
        {
            options.CopyProducer!.MessageMaxBytes = 200_000; // the user's own limit wins
            options.StopApplicationOnFailure = false;
        }, services => services.AddHealthChecks().AddKafkaProtobufConsumers());
        var health = host.Services.GetRequiredService<HealthCheckService>();

        HealthReport failed = await PollHealth(health, HealthStatus.Unhealthy);
        await host.StopAsync().WaitAsync(Deadline);

        string reason = failed.Entries.Values.Single().Description ?? string.Empty;
        Assert.Contains("too-big [0] @0 cannot be written to 'too-big.dlq' (MsgSizeTooLarge", reason, StringComparison.Ordinal);
        Assert.Contains("it is 300,", reason, StringComparison.Ordinal);
        Assert.Contains("the record's key, value and headers 300,012", reason, StringComparison.Ordinal);
        Assert.Contains("max.message.bytes of topic 'too-big.dlq'", reason, StringComparison.Ordinal);
        Assert.Contains("message.max.bytes of the producer", reason, StringComparison.Ordinal);
        Assert.Empty(handled); // nothing past the record, which is read again when the consumer restarts
        Assert.Equal([Offset.Unset.Value], Committed("too-big", 1));
    }
}
