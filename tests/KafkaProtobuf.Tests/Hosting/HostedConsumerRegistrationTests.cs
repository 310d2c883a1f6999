using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Hosting.Service;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Vectors.Telemetry.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>Registering hosted consumers, from code and from configuration, and what is refused before anything connects.</summary>
public sealed class HostedConsumerRegistrationTests
{
    private static IConfiguration Configuration(params (string Key, string Value)[] settings) =>
        new ConfigurationBuilder().AddInMemoryCollection(settings.Select(s => new KeyValuePair<string, string?>(s.Key, s.Value))).Build();

    private static KafkaProtobufConsumerOptions OptionsOf(IServiceCollection services, string name)
    {
        using ServiceProvider provider = services.BuildServiceProvider();
        return provider.GetServices<IHostedService>().OfType<KafkaProtobufConsumerService<string, Device>>().Single(s => s.Name == name).CreateOptions();
    }

    [Fact]
    public void FromConfiguration_TopicsConsumerSettingsDeadLettersAndPolicyAreRead_WithLibrdkafkasNames()
    {
        IConfiguration configuration = Configuration(
            ("Kafka:Devices:Topics:0", "devices"),
            ("Kafka:Devices:Topics:1", "devices.eu"),
            ("Kafka:Devices:DeadLetterTopic", "devices.dlq"),
            ("Kafka:Devices:Consumer:bootstrap.servers", "127.0.0.1:9092"),
            ("Kafka:Devices:Consumer:group.id", "device-service"),
            ("Kafka:Devices:Consumer:security.protocol", "SASL_SSL"),
            ("Kafka:Devices:ReadAgainDelay", "00:00:02"),
            ("Kafka:Devices:HandlerFailures:MaxAttempts", "7"),
            ("Kafka:Devices:HandlerFailures:RetryBackoff", "00:00:00.5"),
            ("Kafka:Devices:HandlerFailures:WhenAttemptsRunOut", "StopConsumer"),
            ("Kafka:Devices:MaxConcurrentHandlers", "6"),
            ("Kafka:Devices:HandlingOrder", "Key"),
            ("Kafka:Devices:MaxReadAheadBytes", "8000000000"),
            ("Kafka:Devices:RevokeTimeout", "00:00:05"),
            ("Kafka:Devices:FailureExitCode", "75"),
            ("Kafka:Devices:CopyProducer:linger.ms", "20"));
        var services = new ServiceCollection();
        services.AddKafkaProtobufConsumer<string, Device>("devices", configuration.GetSection("Kafka:Devices"), o => o.CopyTimeout = TimeSpan.FromSeconds(3))
            .WithProtobufValues()
            .Handle((_, _) => Task.CompletedTask);

        KafkaProtobufConsumerOptions options = OptionsOf(services, "devices");

        Assert.Equal(["devices", "devices.eu"], options.Topics);
        Assert.Equal("devices.dlq", options.DeadLetterTopic);
        Assert.Equal("127.0.0.1:9092", options.Consumer.BootstrapServers);
        Assert.Equal("device-service", options.Consumer.GroupId);
        Assert.Equal("SASL_SSL", options.Consumer.Get("security.protocol"));
        Assert.Equal(TimeSpan.FromSeconds(2), options.ReadAgainDelay);
        Assert.Equal(TimeSpan.FromSeconds(3), options.CopyTimeout); // code after configuration
        Assert.Equal(7, options.HandlerFailures.MaxAttempts);
        Assert.Equal(TimeSpan.FromMilliseconds(500), options.HandlerFailures.RetryBackoff);
        Assert.Equal(HandlerFailureAction.StopConsumer, options.HandlerFailures.WhenAttemptsRunOut);
        Assert.Equal(6, options.MaxConcurrentHandlers);
        Assert.Equal(HandlingOrder.Key, options.HandlingOrder);
        Assert.Equal(8_000_000_000, options.MaxReadAheadBytes); // past int.MaxValue
        Assert.Equal(TimeSpan.FromSeconds(5), options.RevokeTimeout);
        Assert.Equal(75, options.FailureExitCode);
        ProducerConfig deadLetters = options.CopyProducerConfig();
        Assert.Equal("SASL_SSL", deadLetters.Get("security.protocol")); // the producer connects like the consumer
        Assert.Equal("127.0.0.1:9092", deadLetters.BootstrapServers); // though one producer setting was given
        Assert.Equal(20, deadLetters.LingerMs);
        Assert.Equal(3_000, deadLetters.MessageTimeoutMs); // CopyTimeout, set in code
        Assert.False(options.ConsumerConfigForLoop().EnableAutoOffsetStore);
    }

    [Fact]
    public void ProvenanceKeys_AreReadFromConfiguration_AsAnArrayOrAList_AndABadOneIsRefusedWithoutQuotingIt()
    {
        string first = Convert.ToBase64String(new byte[32]), second = Convert.ToBase64String(Enumerable.Repeat((byte)9, 32).ToArray());
        KafkaProtobufConsumerOptions Read(params (string Key, string Value)[] keys)
        {
            IConfiguration configuration = Configuration([("Kafka:Devices:Topics", "devices"), ("Kafka:Devices:Consumer:group.id", "g"), ("Kafka:Devices:Consumer:bootstrap.servers", "127.0.0.1:9092"), .. keys]);
            var services = new ServiceCollection();
            services.AddKafkaProtobufConsumer<string, Device>("devices", configuration.GetSection("Kafka:Devices"), _ => { })
                .WithProtobufValues()
                .Handle((_, _) => Task.CompletedTask);
            return OptionsOf(services, "devices");
        }

        Assert.Equal(2, Read(("Kafka:Devices:ProvenanceKeys:0", first), ("Kafka:Devices:ProvenanceKeys:1", second)).ProvenanceKeys!.Count);
        Assert.Equal(2, Read(("Kafka:Devices:ProvenanceKeys", first + "," + second)).ProvenanceKeys!.Count);
        Assert.Null(Read().ProvenanceKeys);
        InvalidOperationException refused = Assert.Throws<InvalidOperationException>(() => Read(("Kafka:Devices:ProvenanceKeys", "c2hvcnQ=")));
        Assert.Contains("Kafka:Devices:ProvenanceKeys", refused.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("c2hvcnQ=", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void TheCopyProducer_DefaultsToTheConsumersConnection_AllAcks_AndGivesUpWhenTheConsumerDoes()
    {
        var options = new KafkaProtobufConsumerOptions { Consumer = new ConsumerConfig { BootstrapServers = "127.0.0.1:9092", GroupId = "g", SaslUsername = "svc", FetchMaxBytes = 1024 } };

        ProducerConfig config = options.CopyProducerConfig();

        Assert.Equal("127.0.0.1:9092", config.BootstrapServers);
        Assert.Equal("svc", config.SaslUsername);
        Assert.Null(config.Get("fetch.max.bytes")); // a consumer-only setting: librdkafka would warn
        Assert.Equal(Acks.All, config.Acks);
        Assert.True(config.EnableIdempotence);
        Assert.Equal(10_000, config.MessageTimeoutMs); // not librdkafka's 300 s: a dead letter the consumer gave up on is not delivered later

        options.CopyProducer = new ProducerConfig { Acks = Acks.Leader, BootstrapServers = "127.0.0.1:9093" };
        config = options.CopyProducerConfig();
        Assert.Equal(Acks.Leader, config.Acks); // what is given wins
        Assert.Equal("127.0.0.1:9093", config.BootstrapServers);
        Assert.True(config.EnableIdempotence); // and the rest stays
        Assert.Equal("svc", config.SaslUsername);
    }

    [Fact]
    public void ACopyTimeoutAboveHalfThePollInterval_IsCutToHalf_ForTheWaitAndForTheProducer()
    {
        var options = new KafkaProtobufConsumerOptions
        {
            Consumer = new ConsumerConfig { BootstrapServers = "127.0.0.1:9092", GroupId = "g", MaxPollIntervalMs = 6_000 },
            CopyTimeout = TimeSpan.FromSeconds(10),
        };

        Assert.Equal(TimeSpan.FromSeconds(3), options.EffectiveCopyTimeout());
        Assert.Equal(3_000, options.CopyProducerConfig().MessageTimeoutMs); // the producer gives up when the loop does

        options.CopyProducer = new ProducerConfig { MessageTimeoutMs = 5_000 }; // accepted (not above CopyTimeout), cut all the same
        Assert.Equal(3_000, options.CopyProducerConfig().MessageTimeoutMs);

        options.CopyProducer = new ProducerConfig { MessageTimeoutMs = 2_000 }; // below the wait: as given
        Assert.Equal(2_000, options.CopyProducerConfig().MessageTimeoutMs);

        options.Consumer.MaxPollIntervalMs = null; // librdkafka's 300 s: 10 s is well below its half
        options.CopyProducer = null;
        Assert.Equal(TimeSpan.FromSeconds(10), options.EffectiveCopyTimeout());
        Assert.Equal(10_000, options.CopyProducerConfig().MessageTimeoutMs);
    }

    [Fact]
    public void ACopyProducerMessageTimeoutLongerThanCopyTimeout_IsRefused()
    {
        var services = new ServiceCollection();
        services.AddKafkaProtobufConsumer<string, Device>("devices", o =>
        {
            o.Consumer = new ConsumerConfig { BootstrapServers = "127.0.0.1:9092", GroupId = "g" };
            o.Topics.Add("devices");
            o.CopyTimeout = TimeSpan.FromSeconds(10);
            o.CopyProducer = new ProducerConfig { MessageTimeoutMs = 300_000 };
        }).WithProtobufValues().Handle((_, _) => Task.CompletedTask);

        InvalidOperationException e = Assert.Throws<InvalidOperationException>(() => OptionsOf(services, "devices"));
        Assert.Contains("message.timeout.ms (300000) is longer than CopyTimeout", e.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("partition.assignment.strategy", "cooperative-sticky")]
    [InlineData("group.protocol", "consumer")]
    [InlineData("group.remote.assignor", "uniform")]
    public void TheRebalanceProtocol_ComesFromConfiguration_AsLibrdkafkaNamesIt(string key, string value)
    {
        IConfiguration configuration = Configuration(
            ("Kafka:Devices:Topics", "devices"),
            ("Kafka:Devices:Consumer:bootstrap.servers", "127.0.0.1:9092"),
            ("Kafka:Devices:Consumer:group.id", "device-service"),
            ("Kafka:Devices:Consumer:" + key, value));
        var services = new ServiceCollection();
        services.AddKafkaProtobufConsumer<string, Device>("devices", configuration.GetSection("Kafka:Devices")).WithProtobufValues().Handle((_, _) => Task.CompletedTask);

        Assert.Equal(value, OptionsOf(services, "devices").ConsumerConfigForLoop().Get(key)); // what the consumer is built with
    }

    [Fact]
    public void KIP848sProtocol_FromConfiguration_WithAClassicSetting_IsRefusedAtStart_NamingIt()
    {
        IConfiguration configuration = Configuration(
            ("Kafka:Devices:Topics", "devices"),
            ("Kafka:Devices:Consumer:bootstrap.servers", "127.0.0.1:9092"),
            ("Kafka:Devices:Consumer:group.id", "device-service"),
            ("Kafka:Devices:Consumer:group.protocol", "consumer"),
            ("Kafka:Devices:Consumer:heartbeat.interval.ms", "3000"));
        var services = new ServiceCollection();
        services.AddKafkaProtobufConsumer<string, Device>("devices", configuration.GetSection("Kafka:Devices")).WithProtobufValues().Handle((_, _) => Task.CompletedTask);

        InvalidOperationException e = Assert.Throws<InvalidOperationException>(() => OptionsOf(services, "devices"));
        Assert.Contains("which takes no heartbeat.interval.ms: remove it, or use group.protocol 'classic'", e.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("consumer", true)]
    [InlineData("CONSUMER", true)]
    [InlineData("classic", false)]
    public void KIP848sProtocol_WithTheClassicProtocolsSettings_IsRefusedAtStart_NamingThem(string protocol, bool refused)
    {
        var services = new ServiceCollection();
        services.AddKafkaProtobufConsumer<string, Device>("devices", o =>
        {
            o.Consumer = new ConsumerConfig
            {
                BootstrapServers = "127.0.0.1:9092",
                GroupId = "g",
                SessionTimeoutMs = 45_000,
                PartitionAssignmentStrategy = PartitionAssignmentStrategy.CooperativeSticky,
            };
            o.Consumer.Set("group.protocol", protocol);
            o.Topics.Add("devices");
        }).WithProtobufValues().Handle((_, _) => Task.CompletedTask);

        if (!refused)
        {
            Assert.Equal("classic", OptionsOf(services, "devices").Consumer.Get("group.protocol"));
            return;
        }

        InvalidOperationException e = Assert.Throws<InvalidOperationException>(() => OptionsOf(services, "devices"));
        Assert.Contains("group.protocol is 'consumer' (KIP-848: the broker assigns partitions and sets the session), which takes no session.timeout.ms, partition.assignment.strategy: remove them", e.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("HandlerFailures:MaxAttempts", "many", "Kafka:Devices:HandlerFailures:MaxAttempts is 'many'")]
    [InlineData("ReadAgainDelay", "soon", "Kafka:Devices:ReadAgainDelay is 'soon'")]
    [InlineData("HandlingOrder", "Offset", "Kafka:Devices:HandlingOrder is 'Offset'")]
    [InlineData("HandlingOrder", "key", "expected Partition or Key")]
    [InlineData("HandlerFailures:WhenAttemptsRunOut", "Retry", "expected DeadLetter or StopConsumer")]
    [InlineData("MaxConcurrentRecords", "4", "Kafka:Devices:MaxConcurrentRecords is not one it knows; the settings there are Topics, ")]
    [InlineData("HandlerFailures:MaxAttempt", "3", "Kafka:Devices:HandlerFailures:MaxAttempt is not one it knows; the settings there are MaxAttempts, RetryBackoff, MaxRetryBackoff, WhenAttemptsRunOut.")]
    [InlineData("Batches:WhenAttemptsRunOut", "Split", "Kafka:Devices:Batches:WhenAttemptsRunOut is not one it knows")]
    public void ABadSetting_IsNamedWithItsPath(string key, string value, string expected)
    {
        IConfiguration configuration = Configuration(("Kafka:Devices:Topics", "devices"), ("Kafka:Devices:" + key, value));
        var services = new ServiceCollection();
        services.AddKafkaProtobufConsumer<string, Device>("devices", configuration.GetSection("Kafka:Devices")).WithProtobufValues().Handle((_, _) => Task.CompletedTask);

        InvalidOperationException e = Assert.Throws<InvalidOperationException>(() => OptionsOf(services, "devices"));
        Assert.Contains(expected, e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void TheOffsetRule_IsThePackages_AConfigurationThatSaysOtherwiseIsRefused()
    {
        var services = new ServiceCollection();
        services.AddKafkaProtobufConsumer<string, Device>("devices", o =>
        {
            o.Consumer = new ConsumerConfig { BootstrapServers = "127.0.0.1:9092", GroupId = "g", EnableAutoCommit = false };
            o.Topics.Add("devices");
        }).WithProtobufValues().Handle((_, _) => Task.CompletedTask);

        InvalidOperationException e = Assert.Throws<InvalidOperationException>(() => OptionsOf(services, "devices"));
        Assert.Contains("enable.auto.commit", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void EveryBrokenRule_IsNamedAtStart_AtOnce_InTheFormOfEveryPackagesOptions()
    {
        var services = new ServiceCollection();
        services.AddKafkaProtobufConsumer<string, Device>("devices", o =>
        {
            o.Consumer = new ConsumerConfig { BootstrapServers = "127.0.0.1:9092", GroupId = "g" };
            o.Topics.Add("devices");
            o.MaxConcurrentHandlers = 0;
            o.HandlerFailures.MaxAttempts = 0;
            o.RetryTopics.Delays.Add(TimeSpan.FromSeconds(-1));
        }).WithProtobufValues().Handle((_, _) => Task.CompletedTask);

        InvalidOperationException e = Assert.Throws<InvalidOperationException>(() => OptionsOf(services, "devices"));

        Assert.Equal(
            "The KafkaProtobuf consumer 'devices': 3 options are wrong. MaxConcurrentHandlers is 0; it must be at least 1. HandlerFailures.MaxAttempts is 0; it must be at least 1. RetryTopics.Delays[0] is -00:00:01; it must be positive.",
            e.Message);
    }

    [Fact]
    public void WithoutAHandlerOrATopic_OrWithATakenName_TheRegistrationSaysSo()
    {
        var services = new ServiceCollection();
        services.AddKafkaProtobufConsumer<string, Device>("devices", o =>
        {
            o.Consumer = new ConsumerConfig { BootstrapServers = "127.0.0.1:9092", GroupId = "g" };
            o.Topics.Add("devices");
        }).WithProtobufValues();
        services.AddKafkaProtobufConsumer<string, Device>("no-topic", o => o.Consumer = new ConsumerConfig { BootstrapServers = "127.0.0.1:9092", GroupId = "g" })
            .Handle((_, _) => Task.CompletedTask);

        Assert.Contains("no handler", Assert.Throws<InvalidOperationException>(() => OptionsOf(services, "devices")).Message, StringComparison.Ordinal);
        Assert.Contains("Topics is empty", Assert.Throws<InvalidOperationException>(() => OptionsOf(services, "no-topic")).Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => services.AddKafkaProtobufConsumer<string, Device>("devices", _ => { }));
    }

    [Fact]
    public void ABatchHandlersSettings_AreReadFromConfiguration_AndItReplacesARecordHandler()
    {
        IConfiguration configuration = Configuration(
            ("Kafka:Devices:Topics", "devices"),
            ("Kafka:Devices:Consumer:bootstrap.servers", "127.0.0.1:9092"),
            ("Kafka:Devices:Consumer:group.id", "device-service"),
            ("Kafka:Devices:Batches:MaxSize", "500"),
            ("Kafka:Devices:Batches:MaxWait", "00:00:00.250"),
            ("Kafka:Devices:Batches:AcrossPartitions", "true"),
            ("Kafka:Devices:Batches:WhenBatchFails", "WholeBatch"));
        var services = new ServiceCollection();
        services.AddKafkaProtobufConsumer<string, Device>("devices", configuration.GetSection("Kafka:Devices"))
            .WithProtobufValues()
            .Handle((_, _) => Task.CompletedTask)
            .HandleBatch((_, _) => Task.CompletedTask);

        KafkaProtobufConsumerOptions options = OptionsOf(services, "devices");

        Assert.Equal(500, options.Batches.MaxSize);
        Assert.Equal(TimeSpan.FromMilliseconds(250), options.Batches.MaxWait);
        Assert.True(options.Batches.AcrossPartitions);
        Assert.Equal(FailedBatchAction.WholeBatch, options.Batches.WhenBatchFails);
        Assert.Equal(100, new BatchOptions().MaxSize);
        Assert.Equal(TimeSpan.FromSeconds(1), new BatchOptions().MaxWait);
        Assert.Equal(FailedBatchAction.Split, new BatchOptions().WhenBatchFails);
    }

    [Theory]
    [InlineData("MaxConcurrentHandlers", "4", "Batches:AcrossPartitions", "true", "Batches across partitions are handled one at a time")]
    [InlineData("HandlingOrder", "Key", "Batches:MaxSize", "10", "HandlingOrder Key does not apply")]
    [InlineData("Batches:MaxSize", "0", "Batches:MaxWait", "00:00:01", "Batches.MaxSize is 0; it must be at least 1.")]
    [InlineData("Batches:MaxSize", "10", "Batches:MaxWait", "00:00:00", "Batches.MaxWait is 00:00:00; it must be positive.")]
    [InlineData("Batches:WhenBatchFails", "DeadLetter", "Batches:MaxSize", "10", "expected Split or WholeBatch")]
    [InlineData("Batches:AcrossPartitions", "yes", "Batches:MaxSize", "10", "Kafka:Devices:Batches:AcrossPartitions is 'yes'")]
    [InlineData("RetryTopics:Delays", "00:00:00", "Batches:MaxSize", "10", "RetryTopics.Delays[0] is 00:00:00; it must be positive.")]
    [InlineData("RetryTopics:Delays", "soon", "Batches:MaxSize", "10", "Kafka:Devices:RetryTopics:Delays is 'soon'")]
    [InlineData("RetryTopics:Delays", "00:00:10", "Batches:AcrossPartitions", "true", "batches across partitions cannot do")]
    public void ABatchHandlersOrRetryTopicsSettingThatCannotWork_IsRefusedWithTheReason(string key, string value, string otherKey, string otherValue, string expected)
    {
        IConfiguration configuration = Configuration(
            ("Kafka:Devices:Topics", "devices"),
            ("Kafka:Devices:Consumer:bootstrap.servers", "127.0.0.1:9092"),
            ("Kafka:Devices:Consumer:group.id", "device-service"),
            ("Kafka:Devices:" + key, value),
            ("Kafka:Devices:" + otherKey, otherValue));
        var services = new ServiceCollection();
        services.AddKafkaProtobufConsumer<string, Device>("devices", configuration.GetSection("Kafka:Devices")).WithProtobufValues().HandleBatch((_, _) => Task.CompletedTask);

        InvalidOperationException e = Assert.Throws<InvalidOperationException>(() => OptionsOf(services, "devices"));
        Assert.Contains(expected, e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void BatchSettings_DoNotConcernARecordHandler()
    {
        var services = new ServiceCollection();
        services.AddKafkaProtobufConsumer<string, Device>("devices", o =>
        {
            o.Consumer = new ConsumerConfig { BootstrapServers = "127.0.0.1:9092", GroupId = "g" };
            o.Topics.Add("devices");
            o.MaxConcurrentHandlers = 4;
            o.HandlingOrder = HandlingOrder.Key;
            o.Batches.AcrossPartitions = true;
        }).WithProtobufValues().HandleBatch((_, _) => Task.CompletedTask).Handle((_, _) => Task.CompletedTask);

        Assert.Equal(HandlingOrder.Key, OptionsOf(services, "devices").HandlingOrder); // a record handler replaced the batch handler: nothing to refuse
    }

    [Fact]
    public void RetryTopics_AreReadFromConfiguration_AndSubscribedToBesideTheirTopics_UnlessAnotherRegistrationReadsThem()
    {
        IConfiguration configuration = Configuration(
            ("Kafka:Devices:Topics", "devices, devices.eu"),
            ("Kafka:Devices:Consumer:bootstrap.servers", "127.0.0.1:9092"),
            ("Kafka:Devices:Consumer:group.id", "device-service"),
            ("Kafka:Devices:RetryTopics:Delays:0", "00:00:10"),
            ("Kafka:Devices:RetryTopics:Delays:1", "00:01:00"),
            ("Kafka:Retries:Topics", "devices.retry.1,devices.retry.2"),
            ("Kafka:Retries:Consumer:bootstrap.servers", "127.0.0.1:9092"),
            ("Kafka:Retries:Consumer:group.id", "device-service-retries"),
            ("Kafka:Retries:RetryTopics:Delays", "00:00:10, 00:01:00"),
            ("Kafka:Retries:RetryTopics:ReadRetryTopics", "false"));
        var services = new ServiceCollection();
        services.AddKafkaProtobufConsumer<string, Device>("devices", configuration.GetSection("Kafka:Devices")).WithProtobufValues().Handle((_, _) => Task.CompletedTask);
        services.AddKafkaProtobufConsumer<string, Device>("retries", configuration.GetSection("Kafka:Retries")).WithProtobufValues().Handle((_, _) => Task.CompletedTask);

        KafkaProtobufConsumerOptions devices = OptionsOf(services, "devices");
        KafkaProtobufConsumerOptions retries = OptionsOf(services, "retries");

        Assert.Equal([TimeSpan.FromSeconds(10), TimeSpan.FromMinutes(1)], devices.RetryTopics.Delays);
        Assert.Equal(["devices", "devices.eu", "devices.retry.1", "devices.retry.2", "devices.eu.retry.1", "devices.eu.retry.2"], devices.SubscribedTopics());
        Assert.Equal([TimeSpan.FromSeconds(10), TimeSpan.FromMinutes(1)], retries.RetryTopics.Delays);
        Assert.Equal(["devices.retry.1", "devices.retry.2"], retries.SubscribedTopics());
        Assert.Equal("orders.retry.3", RetryTopicOptions.TopicName("orders", 3));
        Assert.Empty(new KafkaProtobufConsumerOptions().RetryTopics.Delays); // off by default
    }
}
