using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using Shop.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Docs.Snippets;

/// <summary>The Schema Registry as the docs show it (see ConsumingSnippets). Compiled, not run.</summary>
internal static class RegistrySnippets
{
    internal static void Registry(ConsumerConfig consumerConfig, ProducerConfig producerConfig, string apiKey, string apiSecret)
    {
        #region registry
        using var registry = new RegistryClient(new RegistryClientOptions
        {
            Urls = { "https://psrc-xxxxx.europe-west3.gcp.confluent.cloud" },   // several: tried in order
            BasicAuthUserInfo = $"{apiKey}:{apiSecret}",                         // Confluent Cloud API key and secret
        });

        // Produce: registers shop.proto (and its imports, as references) on the first record of the subject.
        using var producer = new ProducerBuilder<OrderKey, OrderPlaced>(producerConfig)
            .SetProtobufKeySerializer(registry)              // subject shop.orders-key
            .SetProtobufValueSerializer(registry)            // subject shop.orders-value; Confluent's defaults
            .Build();

        // Consume: each record's path is read in the writer's file, and its type matched by full name among yours.
        using var consumer = new ConsumerBuilder<OrderKey, IMessage>(consumerConfig)
            .SetProtobufKeyDeserializer(registry)                              // typed: checked by name to be an OrderKey
            .SetProtobufValueDeserializer(registry, ShopReflection.Descriptor) // several types, by name
            .Build();
        #endregion
    }

    internal static async Task WarmUp(RegistryClient registry)
    {
        #region registry-warm-up
        // The first record of a schema waits for the registry on the consumer's thread; do that work at start-up instead.
        var deserializer = new MultiTypeProtobufDeserializer([ShopReflection.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = registry } });
        int latest = (await registry.GetLatestVersionAsync("shop.orders-value")).Id!.Value;
        IReadOnlyList<SchemaIdentifier> unknown = await deserializer.WarmUpAsync([SchemaIdentifier.FromId(latest)]);
        #endregion
        unknown.GetHashCode();
    }

    internal static RegistryClient OAuth(string clientSecret)
    {
        #region registry-oauth
        var options = new RegistryClientOptions
        {
            Urls = { "https://psrc-xxxxx.europe-west3.gcp.confluent.cloud" },
            OAuth = new OAuthClientCredentials
            {
                TokenEndpoint = "https://idp.example.com/oauth2/token",
                ClientId = "orders-service",
                ClientSecret = clientSecret,                       // never logged, never in a message or ToString()
                Scope = "schema-registry",
            },
            LogicalCluster = "lsrc-12345",                         // Confluent Cloud: target-sr-cluster
            IdentityPoolId = "pool-AbCd",                          // Confluent Cloud: Confluent-Identity-Pool-Id
        };
        options.TrustedCertificateAuthorities.AddRange(RegistryCertificates.LoadAuthorities("/etc/ssl/private-ca.pem")); // else the system's
        var registry = new RegistryClient(options);
        #endregion
        return registry;
    }

    internal static void CompatibleWithTheLastRelease()
    {
        #region schema-evolution-test
        // schemas/orders-v1.pb: kept from the last release (protoc --include_imports --descriptor_set_out=...).
        ProtoSchema released = ProtoSchema.Of(FileDescriptorSet.Parser.ParseFrom(File.ReadAllBytes("schemas/orders-v1.pb")));
        CompatibilityVerdict verdict = ProtobufCompatibility.Check(
            ProtoSchema.Of(OrderPlaced.Descriptor.File), [released], CompatibilityLevel.Backward);

        Assert.True(verdict.IsCompatible, string.Join("\n", verdict.Incompatibilities.Select(d => d.Description)));
        #endregion
    }

    internal static void CompatibleWithTheReleasedProtoFile()
    {
        #region schema-evolution-proto-text
        // schemas/orders-v1.proto: the file as released; its imports by path (well-known ones are built in).
        ProtoSchema released = ProtoSource.Schema(
            File.ReadAllText("schemas/orders-v1.proto"),
            new Dictionary<string, string> { ["shop/money.proto"] = File.ReadAllText("schemas/shop/money.proto") });
        Assert.True(ProtobufCompatibility.Check(ProtoSchema.Of(OrderPlaced.Descriptor.File), [released], CompatibilityLevel.Backward).IsCompatible);
        #endregion
    }
}
