using System;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Loops;

namespace KafkaProtobuf.Hosting.Service;

/// <summary>One consumer as <see cref="ConsumerFactory{TKey, TValue}"/> put it together: what the service runs, closes and frees.</summary>
internal sealed class ConsumerParts<TKey, TValue>(ConsumerClient<TKey, TValue> client, IProducer<byte[], byte[]>? copies, IConsumeLoop loop)
    : IDisposable
{
    /// <summary>The Kafka client, the one holder of the consumer.</summary>
    public ConsumerClient<TKey, TValue> Client { get; } = client;

    /// <summary>The producer of dead letters and retry copies; null with neither.</summary>
    public IProducer<byte[], byte[]>? Copies { get; } = copies;

    public IConsumeLoop Loop { get; } = loop;

    public void Dispose()
    {
        Client.Dispose();
        Copies?.Dispose();
    }
}
