using System;
using System.Collections.Immutable;
using System.Linq;
using System.Globalization;
using System.Threading;
using System.Threading.Tasks;
using Aspire.Hosting.ApplicationModel;
using KafkaProtobuf.Aspire.Hosting;
using KafkaProtobuf.Aspire.Hosting.Commands;
using KafkaProtobuf.Testing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;

namespace Aspire.Hosting;

/// <summary>
/// Adds KafkaProtobuf's Kafka and Schema Registry resources to an Aspire AppHost: both run inside the AppHost's
/// process (no Docker, no JVM) on loopback ports the operating system chooses, and their data lives as long as the
/// AppHost. Reference them from a service with <c>WithReference</c>; read them there with KafkaProtobuf.Aspire (or
/// any client that takes a Kafka host list and a registry URL).
/// </summary>
public static class KafkaProtobufResourceBuilderExtensions
{
    /// <summary>
    /// Adds a Kafka resource served by the embedded cluster (librdkafka's mock cluster). Its connection string is the
    /// bootstrap servers' host list. The dashboard shows it running with its servers and topics, and offers "Dead
    /// letters" (a dry run listing what waits in a dead-letter topic), "Redrive dead letters" (after that dry run) and
    /// "Group lag".
    /// </summary>
    /// <param name="builder">The AppHost's builder.</param>
    /// <param name="name">The resource's name, and the connection name services read it by.</param>
    /// <returns>The resource's builder: a cluster of one broker.</returns>
    public static IResourceBuilder<EmbeddedKafkaResource> AddEmbeddedKafka(this IDistributedApplicationBuilder builder, string name) =>
        AddEmbeddedKafka(builder, name, 1);

    /// <summary>As <see cref="AddEmbeddedKafka(IDistributedApplicationBuilder, string)"/>, with more brokers (a partition's leader can then be taken down).</summary>
    /// <param name="builder">The AppHost's builder.</param>
    /// <param name="name">The resource's name, and the connection name services read it by.</param>
    /// <param name="brokerCount">Brokers in the cluster, 1 or more.</param>
    /// <returns>The resource's builder.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="brokerCount"/> is below 1.</exception>
    public static IResourceBuilder<EmbeddedKafkaResource> AddEmbeddedKafka(this IDistributedApplicationBuilder builder, string name, int brokerCount)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        ArgumentOutOfRangeException.ThrowIfLessThan(brokerCount, 1);

        var kafka = new EmbeddedKafkaResource(name, brokerCount);
        var deadLetters = new DeadLetterCommands(kafka);
        return AddInProcess(
                builder,
                kafka,
                "Kafka (embedded)",
                () => kafka.Cluster is null
                    ? HealthCheckResult.Unhealthy("The embedded cluster is not running.")
                    : HealthCheckResult.Healthy("The embedded cluster is running."),
                _ =>
                {
                    EmbeddedKafkaCluster cluster = kafka.Start();
                    return Task.FromResult(ImmutableArray.Create(
                        new ResourcePropertySnapshot("bootstrap.servers", cluster.BootstrapServers),
                        new ResourcePropertySnapshot("brokers", cluster.BrokerCount.ToString(CultureInfo.InvariantCulture)),
                        new ResourcePropertySnapshot("topics", string.Join(", ", kafka.Topics.Select(t => t.Name + " (" + t.Partitions.ToString(CultureInfo.InvariantCulture) + ")")))));
                },
                kafka.Stop)
            .WithCommand(DeadLetterCommands.ListName, "Dead letters", deadLetters.ListAsync, DeadLetterCommands.ListOptions())
            .WithCommand(DeadLetterCommands.RedriveName, "Redrive dead letters", deadLetters.RedriveAsync, DeadLetterCommands.RedriveOptions())
            .WithCommand(GroupLagCommand.Name, "Group lag", context => GroupLagCommand.ExecuteAsync(kafka, context), GroupLagCommand.Options());
    }

    /// <summary>Creates a topic of one partition when the cluster starts (a topic added twice takes the last partition count).</summary>
    /// <param name="builder">The Kafka resource's builder.</param>
    /// <param name="topic">The topic's name.</param>
    /// <returns>The builder.</returns>
    public static IResourceBuilder<EmbeddedKafkaResource> WithTopic(this IResourceBuilder<EmbeddedKafkaResource> builder, string topic) =>
        WithTopic(builder, topic, 1);

    /// <summary>Creates a topic when the cluster starts (a topic added twice takes the last partition count).</summary>
    /// <param name="builder">The Kafka resource's builder.</param>
    /// <param name="topic">The topic's name.</param>
    /// <param name="partitions">Its partitions, 1 or more.</param>
    /// <returns>The builder.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="partitions"/> is below 1.</exception>
    public static IResourceBuilder<EmbeddedKafkaResource> WithTopic(this IResourceBuilder<EmbeddedKafkaResource> builder, string topic, int partitions)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentException.ThrowIfNullOrWhiteSpace(topic);
        ArgumentOutOfRangeException.ThrowIfLessThan(partitions, 1);
        builder.Resource.AddTopic(topic, partitions);
        return builder;
    }

    /// <summary>
    /// The keys the dashboard's "Dead letters" and "Redrive dead letters" verify dead letters' blocks with, and sign the
    /// redrive's own blocks with: the keys the services' hosted consumers sign with (<c>ProvenanceKeys</c> in their
    /// configuration). Give both from the AppHost's configuration (a user secret or the environment), e.g.
    /// <c>ProvenanceKeys.Parse(builder.Configuration["KafkaProtobuf:ProvenanceKeys"]!)</c>; never write them in code.
    /// </summary>
    /// <param name="builder">The Kafka resource's builder.</param>
    /// <param name="keys">The keys.</param>
    /// <returns>The builder.</returns>
    public static IResourceBuilder<EmbeddedKafkaResource> WithProvenanceKeys(this IResourceBuilder<EmbeddedKafkaResource> builder, KafkaProtobuf.DeadLetters.ProvenanceKeys keys)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentNullException.ThrowIfNull(keys);
        builder.Resource.ProvenanceKeys = keys;
        return builder;
    }

    /// <summary>
    /// Adds a Schema Registry resource served by the in-process registry, which checks compatibility as Confluent's
    /// does (an incompatible schema is refused with 409). Its connection string is its URL. The dashboard shows it
    /// running with its URL and subjects, and offers "Check .proto" (a .proto against a subject's versions).
    /// </summary>
    /// <param name="builder">The AppHost's builder.</param>
    /// <param name="name">The resource's name, and the connection name services read it by.</param>
    /// <returns>The resource's builder.</returns>
    public static IResourceBuilder<InProcessSchemaRegistryResource> AddInProcessSchemaRegistry(this IDistributedApplicationBuilder builder, string name)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentException.ThrowIfNullOrWhiteSpace(name);

        var registry = new InProcessSchemaRegistryResource(name);
        return AddInProcess(
                builder,
                registry,
                "Schema Registry (in-process)",
                () => registry.Registry is { IsRunning: true }
                    ? HealthCheckResult.Healthy("The in-process registry is running.")
                    : HealthCheckResult.Unhealthy("The in-process registry is not running."),
                async cancellationToken =>
                {
                    InProcessSchemaRegistry started = await registry.StartAsync(cancellationToken).ConfigureAwait(false);
                    return ImmutableArray.Create(
                        new ResourcePropertySnapshot("url", started.Url),
                        new ResourcePropertySnapshot("subjects", string.Join(", ", registry.Subjects.Select(s => s.Name))));
                },
                registry.Stop)
            .WithCommand(ProtoCheckCommand.Name, "Check .proto", context => ProtoCheckCommand.ExecuteAsync(registry, context), ProtoCheckCommand.Options());
    }

    /// <summary>
    /// Registers a .proto under a subject when the registry starts, as a producer's serializer would (in the order
    /// given, so a later version of a subject is checked against the earlier ones). Imports: the well-known types.
    /// </summary>
    /// <param name="builder">The registry resource's builder.</param>
    /// <param name="subject">The subject, e.g. <c>orders-value</c>.</param>
    /// <param name="protoText">The .proto file's text.</param>
    /// <returns>The builder.</returns>
    /// <exception cref="ProtoSyntaxException">The text does not compile (checked now, not at start).</exception>
    public static IResourceBuilder<InProcessSchemaRegistryResource> WithSubject(this IResourceBuilder<InProcessSchemaRegistryResource> builder, string subject, string protoText)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentException.ThrowIfNullOrWhiteSpace(subject);
        ArgumentException.ThrowIfNullOrWhiteSpace(protoText);
        _ = ProtoSource.Schema(protoText);
        builder.Resource.AddSubject(subject, protoText);
        return builder;
    }

    /// <summary>
    /// Adds a resource that runs in the AppHost's process: a health check on whether it runs, its type and state for the
    /// dashboard, and its start as Aspire starts any (<see cref="StartAsync"/>).
    /// </summary>
    private static IResourceBuilder<TResource> AddInProcess<TResource>(
        IDistributedApplicationBuilder builder,
        TResource resource,
        string resourceType,
        Func<HealthCheckResult> health,
        Func<CancellationToken, Task<ImmutableArray<ResourcePropertySnapshot>>> start,
        Action stop)
        where TResource : IResourceWithConnectionString
    {
        string check = resource.Name + "-kafkaprotobuf-running";
        builder.Services.AddHealthChecks().AddCheck(check, health);
        return builder.AddResource(resource)
            .WithInitialState(new CustomResourceSnapshot
            {
                ResourceType = resourceType,
                State = KnownResourceStates.NotStarted,
                Properties = [],
            })
            .WithHealthCheck(check)
            .OnInitializeResource((started, e, cancellationToken) => StartAsync(started, e, () => start(cancellationToken), stop, cancellationToken));
    }

    /// <summary>
    /// Starts an in-process resource as Aspire starts any: before-start event, running state with its properties, its
    /// connection string available; stops it when the AppHost has stopped. A start that fails shows as FailedToStart.
    /// </summary>
    private static async Task StartAsync<TResource>(
        TResource resource,
        InitializeResourceEvent e,
        Func<Task<ImmutableArray<ResourcePropertySnapshot>>> start,
        Action stop,
        CancellationToken cancellationToken)
        where TResource : IResourceWithConnectionString
    {
        await e.Eventing.PublishAsync(new BeforeResourceStartedEvent(resource, e.Services), cancellationToken).ConfigureAwait(false);
        await e.Notifications.PublishUpdateAsync(resource, s => s with { State = KnownResourceStates.Starting }).ConfigureAwait(false);
        ImmutableArray<ResourcePropertySnapshot> properties;
        try
        {
            properties = await start().ConfigureAwait(false);
        }
        catch (Exception failure)
        {
            e.Logger.LogStartFailure(resource.Name, failure);
            await e.Notifications.PublishUpdateAsync(resource, s => s with { State = KnownResourceStates.FailedToStart }).ConfigureAwait(false);
            return;
        }

        e.Services.GetRequiredService<IHostApplicationLifetime>().ApplicationStopped.Register(stop);
        await e.Notifications.PublishUpdateAsync(resource, s => s with
        {
            State = KnownResourceStates.Running,
            StartTimeStamp = DateTime.UtcNow,
            Properties = properties,
        }).ConfigureAwait(false);
        await e.Eventing.PublishAsync(new ConnectionStringAvailableEvent(resource, e.Services), cancellationToken).ConfigureAwait(false);
    }
}
