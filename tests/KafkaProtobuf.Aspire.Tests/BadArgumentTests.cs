using System;
using Aspire.Hosting;
using KafkaProtobuf.Testing;
using Microsoft.Extensions.Hosting;
using Orders.V1;
using Xunit;

namespace KafkaProtobuf.Aspire.Tests;

/// <summary>
/// Every public method of the two Aspire packages given a bad argument (the walk of KafkaProtobuf.Tests covers the
/// other packages by reflection; these take Aspire's builders, which it cannot make): an argument exception naming the
/// parameter, or the documented one, before anything is registered.
/// </summary>
public sealed class BadArgumentTests
{
    [Fact]
    public void TheClientCalls_RefuseANullBuilder_AndAnEmptyName()
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        int services = builder.Services.Count;
        Assert.Equal("builder", Assert.Throws<ArgumentNullException>(() => ((IHostApplicationBuilder)null!).AddKafkaProtobufRegistryClient("registry")).ParamName);
        Assert.Equal("builder", Assert.Throws<ArgumentNullException>(() => ((IHostApplicationBuilder)null!).AddKafkaProtobufProducer<string, OrderPlaced>("kafka")).ParamName);
        Assert.Equal("builder", Assert.Throws<ArgumentNullException>(() => ((IHostApplicationBuilder)null!).AddKafkaProtobufConsumer<string, OrderPlaced>("kafka", "orders")).ParamName);
        foreach (string? name in new[] { null, "", " " })
        {
            Assert.Equal("connectionName", Assert.ThrowsAny<ArgumentException>(() => builder.AddKafkaProtobufRegistryClient(name!)).ParamName);
            Assert.Equal("connectionName", Assert.ThrowsAny<ArgumentException>(() => builder.AddKeyedKafkaProtobufRegistryClient(name!)).ParamName);
            Assert.Equal("connectionName", Assert.ThrowsAny<ArgumentException>(() => builder.AddKafkaProtobufProducer<string, OrderPlaced>(name!)).ParamName);
            Assert.Equal("connectionName", Assert.ThrowsAny<ArgumentException>(() => builder.AddKeyedKafkaProtobufProducer<string, OrderPlaced>(name!)).ParamName);
            Assert.Equal("connectionName", Assert.ThrowsAny<ArgumentException>(() => builder.AddKafkaProtobufConsumer<string, OrderPlaced>(name!, "orders")).ParamName);
        }

        builder.Configuration["ConnectionStrings:kafka"] = "127.0.0.1:9092";
        Assert.Equal("consumerName", Assert.ThrowsAny<ArgumentException>(() => builder.AddKafkaProtobufConsumer<string, OrderPlaced>("kafka", " ")).ParamName);
        Assert.Equal(services, builder.Services.Count); // nothing registered by a refused call
    }

    [Fact]
    public void TheHostingCalls_RefuseBadNamesCountsAndText()
    {
        IDistributedApplicationBuilder builder = DistributedApplication.CreateBuilder(new DistributedApplicationOptions { Args = [], DisableDashboard = true });
        Assert.Throws<ArgumentNullException>(() => ((IDistributedApplicationBuilder)null!).AddEmbeddedKafka("kafka"));
        Assert.Throws<ArgumentNullException>(() => ((IDistributedApplicationBuilder)null!).AddInProcessSchemaRegistry("registry"));
        Assert.ThrowsAny<ArgumentException>(() => builder.AddEmbeddedKafka(" "));
        Assert.ThrowsAny<ArgumentException>(() => builder.AddInProcessSchemaRegistry(""));
        Assert.Equal("brokerCount", Assert.Throws<ArgumentOutOfRangeException>(() => builder.AddEmbeddedKafka("kafka", brokerCount: 0)).ParamName);

        var kafka = builder.AddEmbeddedKafka("kafka");
        Assert.Equal("topic", Assert.ThrowsAny<ArgumentException>(() => kafka.WithTopic("")).ParamName);
        Assert.Equal("partitions", Assert.Throws<ArgumentOutOfRangeException>(() => kafka.WithTopic("orders", 0)).ParamName);
        var registry = builder.AddInProcessSchemaRegistry("registry");
        Assert.Equal("subject", Assert.ThrowsAny<ArgumentException>(() => registry.WithSubject(" ", "syntax = \"proto3\";")).ParamName);
        Assert.Equal("protoText", Assert.ThrowsAny<ArgumentException>(() => registry.WithSubject("orders-value", "")).ParamName);
        ProtoSyntaxException typo = Assert.Throws<ProtoSyntaxException>(() => registry.WithSubject("orders-value", "syntax = \"proto3\";\nmessage Order { strng id = 1; }\n"));
        Assert.Equal(2, typo.Line); // said when the AppHost's code runs, not when the registry starts
        Assert.Empty(registry.Resource.Subjects);
        Assert.Empty(kafka.Resource.Topics);

        // What the resources hand out is a view: it says what was added, and refuses a change cast back.
        kafka.WithTopic("orders", 3).WithTopic("orders", 6);
        registry.WithSubject("orders-value", "syntax = \"proto3\";\nmessage Order { string id = 1; }\n");
        Assert.Equal(("orders", 6), (Assert.Single(kafka.Resource.Topics).Name, kafka.Resource.Topics[0].Partitions)); // the last WithTopic of a name counts
        Assert.Equal("orders-value", Assert.Single(registry.Resource.Subjects).Name);
        Assert.Throws<NotSupportedException>(() => ((System.Collections.Generic.IList<KafkaProtobuf.Aspire.Hosting.EmbeddedKafkaTopic>)kafka.Resource.Topics).Clear());
        Assert.Throws<NotSupportedException>(() => ((System.Collections.Generic.IList<KafkaProtobuf.Aspire.Hosting.SchemaSubject>)registry.Resource.Subjects).Clear());
    }
}
