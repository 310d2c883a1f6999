using KafkaProtobuf.Streamiz;
using Shop.V1;
using Streamiz.Kafka.Net;
using Streamiz.Kafka.Net.SerDes;
using Streamiz.Kafka.Net.Table;

namespace KafkaProtobuf.Tests.Docs.Snippets;

/// <summary>The Streamiz serdes as the docs show them. Compiled, not run.</summary>
internal static class StreamizSnippets
{
    internal static KafkaStream Totals(string clientSecret)
    {
        #region streamiz-serdes
        var config = new StreamConfig<StringSerDes, RegistryProtobufSerDes<OrderPlaced>>   // the default value serdes
        {
            ApplicationId = "order-totals",
            BootstrapServers = "localhost:9092",
            // A poison record is skipped (and logged by Streamiz); a registry outage stops the thread instead of skipping.
            DeserializationExceptionHandler = ProtobufDeserializationHandler.ContinueOnBadDataOnly,
        };
        config.AddConfig("schema.registry.url", "https://psrc-xxxxx.europe-west3.gcp.confluent.cloud");
        config.AddConfig("schema.registry.bearer.auth.credentials.source", "OAUTHBEARER");
        config.AddConfig("schema.registry.bearer.auth.token.endpoint.url", "https://idp.example.com/oauth2/token");
        config.AddConfig("schema.registry.bearer.auth.client.id", "order-totals");
        config.AddConfig("schema.registry.bearer.auth.client.secret", clientSecret);
        config.AddConfig("schema.registry.bearer.auth.logical.cluster", "lsrc-12345");

        var builder = new StreamBuilder();
        builder.Stream<string, OrderPlaced>("orders")
            .GroupByKey()
            .Aggregate(
                () => new OrderPlaced(),
                (customer, order, total) =>
                {
                    OrderPlaced next = total.Clone();
                    next.Customer = customer;
                    next.Lines.Add(order.Lines);
                    return next;
                },
                InMemory.As<string, OrderPlaced>("totals-store"))   // the store keeps the schema id in each value's prefix
            .ToStream()
            .To("order-totals");
        return new KafkaStream(builder.Build(), config);
        #endregion
    }
}
