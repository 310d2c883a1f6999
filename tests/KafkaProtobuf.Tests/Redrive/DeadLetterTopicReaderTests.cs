using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Redrive;
using KafkaProtobuf.Testing;
using Xunit;

namespace KafkaProtobuf.Tests.Redrive;

/// <summary>
/// <see cref="DeadLetterTopicReader"/> on the embedded cluster: a topic read a window at a time, newest first, every
/// record once down to its start; its dead letters grouped by failure; what a hostile cursor or size gets.
/// </summary>
public sealed class DeadLetterTopicReaderTests : IDisposable
{
    private const string Topic = "orders.dlq";
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(60);
    private readonly EmbeddedKafkaCluster _cluster = EmbeddedKafkaCluster.Start(1);
    private readonly DeadLetterTopicReader _reader;

    public DeadLetterTopicReaderTests()
    {
        _cluster.CreateTopic(Topic, 2);
        _reader = new DeadLetterTopicReader(new ClientConfig { BootstrapServers = _cluster.BootstrapServers });
    }

    public void Dispose()
    {
        _reader.Dispose();
        _cluster.Dispose();
    }

    /// <summary>Dead-letters <paramref name="count"/> records of orders, alternating partitions, with the failure <paramref name="failure"/> gives each.</summary>
    private void DeadLetter(int count, Func<int, Exception> failure)
    {
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(_cluster.CreateProducerConfig()).Build();
        for (int i = 0; i < count; i++)
        {
            var record = new ConsumeResult<byte[], byte[]>
            {
                TopicPartitionOffset = new TopicPartitionOffset("orders", i % 3, 1000 + i),
                Message = new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes("k" + i), Value = [1, 2, 3], Headers = [] },
            };
            producer.Produce(new TopicPartition(Topic, i % 2), record.ToDeadLetterMessage(failure(i)));
        }

        Assert.Equal(0, producer.Flush(Deadline));
    }

    [Fact]
    public async Task Windows_PageNewestFirst_EachRecordOnce_DownToTheStart()
    {
        DeadLetter(230, _ => new TimeoutException("slow"));
        var seen = new List<(int Partition, long Offset)>();
        DeadLetterCursor? cursor = null;
        int windows = 0;
        do
        {
            DeadLetterWindow window = (await _reader.ReadWindowAsync(Topic, cursor, 50, CancellationToken.None))!;
            Assert.Equal(230, window.Total);
            Assert.Equal([0, 1], window.Partitions.Select(p => p.Partition));
            Assert.True(window.DeadLetters.Count <= 50);
            foreach (int partition in new[] { 0, 1 })
            {
                long[] offsets = [.. window.DeadLetters.Where(d => d.Record.Partition.Value == partition).Select(d => d.Record.Offset.Value)];
                Assert.Equal(offsets.OrderByDescending(o => o), offsets); // newest first
            }

            seen.AddRange(window.DeadLetters.Select(d => (d.Record.Partition.Value, d.Record.Offset.Value)));
            Assert.True(DeadLetterCursor.TryParse(window.Older?.ToString(), out DeadLetterCursor? parsed)); // what a page's link carries
            cursor = window.Older is null ? null : parsed;
            windows++;
        }
        while (cursor is not null && windows < 20);

        Assert.Null(cursor);
        Assert.Equal(230, seen.Count);
        Assert.Equal(230, seen.Distinct().Count());
        Assert.All(seen, s => Assert.InRange(s.Offset, 0, 114));
    }

    [Fact]
    public async Task AWindowsDeadLetters_AreGroupedByFailure_InTheOrderOfTheirNewest()
    {
        DeadLetter(6, i => i switch
        {
            5 => new FormatException("bad number\nat line 2"),
            4 => new FormatException("bad number\nat line 9"),
            _ => new TimeoutException("slow " + new string('x', 400)),
        });

        DeadLetterWindow window = (await _reader.ReadWindowAsync(Topic, null, 10, CancellationToken.None))!;

        Assert.Equal(2, window.Groups.Count);
        DeadLetterGroup format = window.Groups[0];
        Assert.Equal(("System.FormatException", "handler", "bad number"), (format.ErrorCode, format.Component, format.Example));
        Assert.Equal(2, format.DeadLetters.Count); // the same first line: one group
        DeadLetterGroup timeout = window.Groups[1];
        Assert.Equal(DeadLetterGroup.MaxFirstLineChars, timeout.Example.Length);
        Assert.Equal(4, timeout.DeadLetters.Count);
        Assert.All(window.DeadLetters, d => Assert.Equal("orders", d.SourceTopic));
    }

    [Fact]
    public async Task OneDeadLetter_IsReadByItsPlace_AndAPlaceWithoutOneIsNull()
    {
        DeadLetter(2, _ => new TimeoutException("slow"));

        DeadLetter? second = await _reader.ReadAsync(Topic, 1, 0, CancellationToken.None);
        Assert.Equal("k1", Encoding.UTF8.GetString(second!.Record.Message.Key));
        Assert.Equal(1001, second.SourceOffset);
        Assert.Null(await _reader.ReadAsync(Topic, 1, 5, CancellationToken.None));
        Assert.Null(await _reader.ReadWindowAsync("no-such.dlq", null, 10, CancellationToken.None));
    }

    [Fact]
    public void UsageErrors_AreThrownAtTheCall_NotInsideTheTask()
    {
        // Thrown by the call itself (a task that failed would come back, not throw, from a lambda that only calls).
        Assert.Equal("partition", Assert.Throws<ArgumentOutOfRangeException>(() => { _ = _reader.ReadAsync(Topic, -1, 0); }).ParamName);
        Assert.Equal("offset", Assert.Throws<ArgumentOutOfRangeException>(() => { _ = _reader.ReadAsync(Topic, 0, -1); }).ParamName);
        Assert.Equal("topic", Assert.Throws<ArgumentException>(() => { _ = _reader.ReadAsync(string.Empty, 0, 0); }).ParamName);
        Assert.Equal("maxRecords", Assert.Throws<ArgumentOutOfRangeException>(() => { _ = _reader.ReadWindowAsync(Topic, null, 0); }).ParamName);
    }

    [Fact]
    public async Task ASizeOutOfRange_IsRefused_AndADisposedReaderSaysSo()
    {
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => _reader.ReadWindowAsync(Topic, null, 0, CancellationToken.None));
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => _reader.ReadWindowAsync(Topic, null, DeadLetterTopicReader.MaxWindowRecords + 1, CancellationToken.None));
        await Assert.ThrowsAsync<ArgumentException>(() => _reader.ReadWindowAsync(string.Empty, null, 10, CancellationToken.None));

        var other = new DeadLetterTopicReader(new ClientConfig { BootstrapServers = _cluster.BootstrapServers });
        other.Dispose();
        await Assert.ThrowsAsync<ObjectDisposedException>(() => other.ReadWindowAsync(Topic, null, 10, CancellationToken.None));
    }

    [Theory]
    [InlineData("0:5,1:7", true)]
    [InlineData("", true)]
    [InlineData(null, true)]
    [InlineData("0:5,0:6", false)]
    [InlineData("0:-1", false)]
    [InlineData("-1:5", false)]
    [InlineData("0:5,", false)]
    [InlineData("0:99999999999999999999", false)]
    [InlineData("0:5:6", false)]
    [InlineData("x", false)]
    public void ACursor_IsReadOnlyAsPartitionOffsetPairs(string? text, bool valid)
    {
        Assert.Equal(valid, DeadLetterCursor.TryParse(text, out DeadLetterCursor? cursor));
        if (!valid)
        {
            Assert.Null(cursor); // nothing usable on failure: a page cannot fall back to the newest window by mistake
        }
        else if (string.IsNullOrEmpty(text))
        {
            Assert.Same(DeadLetterCursor.Newest, cursor);
        }
        else
        {
            Assert.Equal(text, cursor!.ToString());
            Assert.Equal(5, cursor.OffsetIn(0));
            Assert.Null(cursor.OffsetIn(2));
        }
    }

    [Fact]
    public void ACursor_NamesAtMostTenThousandPartitions()
    {
        string many = string.Join(",", Enumerable.Range(0, DeadLetterCursor.MaxPartitions + 1).Select(p => p + ":1"));
        Assert.False(DeadLetterCursor.TryParse(many, out _));
        Assert.True(DeadLetterCursor.TryParse(string.Join(",", Enumerable.Range(0, DeadLetterCursor.MaxPartitions).Select(p => p + ":1")), out _));
        Assert.Throws<ArgumentException>(() => DeadLetterCursor.Before([new KeyValuePair<int, long>(0, -1)]));
    }
}
