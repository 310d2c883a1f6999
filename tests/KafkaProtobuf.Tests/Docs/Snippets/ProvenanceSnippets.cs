using System;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Redrive;

namespace KafkaProtobuf.Tests.Docs.Snippets;

/// <summary>Signed provenance as docs/dead-letters.md shows it. Compiled, not run.</summary>
internal static class ProvenanceSnippets
{
    internal static void SignedLoop(IConsumer<string, global::Shop.V1.OrderPlaced> consumer, ConsumeException e, IProducer<byte[], byte[]> deadLetterProducer, ConsumeResult<byte[], byte[]> deadLetterRecord)
    {
        #region provenance-loop
        // The keys from a secret store, never from code: base64, the signing key first, the others still verify.
        var codec = new ProvenanceCodec(ProvenanceKeys.Parse(Environment.GetEnvironmentVariable("ORDERS_PROVENANCE_KEYS")!));

        // Writing: the same dead letter as consumer.DeadLetter(e, ...), its block signed.
        consumer.Forward(e.ConsumerRecord, codec.ToDeadLetterMessage(e), deadLetterProducer, "shop.orders.dlq", TimeSpan.FromSeconds(10), DeadLetterOffsetHandling.Store);

        // Reading it back: Verified, or Unverified (forged, altered, signed with a key this reader lacks): then no source.
        DeadLetter letter = codec.Read(deadLetterRecord);
        Console.WriteLine($"{letter.Provenance}: {letter.DescribeSource()}"); // Verified: shop.orders [2] @41
        #endregion
    }

    internal static void Hosted(KafkaProtobufConsumerOptions options, RedriveOptions redrive, string keysFromConfiguration)
    {
        #region provenance-hosted
        // One set of keys for the consumers (dead letters, retry copies) and whatever reads their dead letters.
        ProvenanceKeys keys = ProvenanceKeys.Parse(keysFromConfiguration); // e.g. configuration["Kafka:ProvenanceKeys"]
        options.ProvenanceKeys = keys;
        redrive.ProvenanceKeys = keys;
        #endregion
    }
}
