using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using IMessage = Google.Protobuf.IMessage;
using Wolverine;

namespace KafkaProtobuf.Wolverine.Tests.Support;

/// <summary>What the handlers were given, by topic (each test reads its own topic): what a user's handler sees.</summary>
public static class Handled
{
    private static readonly ConcurrentDictionary<string, ConcurrentQueue<HandledRecord>> ByTopic = new();

    public static void Add(Envelope envelope, IMessage message) =>
        ByTopic.GetOrAdd(envelope.TopicName ?? "?", _ => new()).Enqueue(new HandledRecord(
            message, envelope.RecordHeaders(), envelope.Offset, envelope.PartitionId, new Dictionary<string, string?>(envelope.Headers), envelope.TenantId, envelope.ReplyUri));

    public static IReadOnlyList<HandledRecord> On(string topic) => ByTopic.TryGetValue(topic, out var queue) ? [.. queue] : [];

    /// <summary>Waits until <paramref name="topic"/>'s handlers were given at least <paramref name="count"/> messages.</summary>
    public static IReadOnlyList<HandledRecord> WaitFor(string topic, int count, TimeSpan timeout)
    {
        DateTime end = DateTime.UtcNow + timeout;
        while (On(topic).Count < count)
        {
            if (DateTime.UtcNow > end)
            {
                throw new TimeoutException("Handled " + On(topic).Count + " of " + count + " messages of " + topic + " in " + timeout + ".");
            }

            Thread.Sleep(20);
        }

        return On(topic);
    }
}

public sealed record HandledRecord(
    IMessage Message, Confluent.Kafka.Headers? RecordHeaders, long Offset, int? Partition, IReadOnlyDictionary<string, string?> EnvelopeHeaders, string? TenantId, Uri? ReplyUri);
