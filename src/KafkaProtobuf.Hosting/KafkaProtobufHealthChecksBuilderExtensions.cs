using System.Collections.Generic;
using KafkaProtobuf.Hosting.Health;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace KafkaProtobuf.Hosting;

/// <summary>Registers the hosted consumers' health check.</summary>
public static class KafkaProtobufHealthChecksBuilderExtensions
{
    /// <summary>
    /// Adds one check for every hosted consumer: <see cref="HealthStatus.Unhealthy"/> (or <paramref name="failureStatus"/>)
    /// when one has stopped or failed, <see cref="HealthStatus.Degraded"/> while one cannot obtain a writer's schema or
    /// its handler keeps failing on a record; each consumer's <see cref="KafkaProtobufConsumerState"/> in the data.
    /// </summary>
    /// <param name="builder">The health checks builder (<c>services.AddHealthChecks()</c>).</param>
    /// <param name="name">The check's name. Default <c>kafkaprotobuf-consumers</c>.</param>
    /// <param name="failureStatus">What a stopped or failed consumer reports; default <see cref="HealthStatus.Unhealthy"/>.</param>
    /// <param name="tags">Tags to filter checks by (e.g. <c>ready</c>).</param>
    /// <returns>The builder.</returns>
    public static IHealthChecksBuilder AddKafkaProtobufConsumers(
        this IHealthChecksBuilder builder,
        string name = "kafkaprotobuf-consumers",
        HealthStatus? failureStatus = null,
        IEnumerable<string>? tags = null)
    {
        if (builder is null)
        {
            throw new System.ArgumentNullException(nameof(builder));
        }

        builder.Services.TryAddSingleton<KafkaProtobufConsumerStates>();
        return builder.Add(new HealthCheckRegistration(
            name,
            provider => new KafkaProtobufConsumersHealthCheck(provider.GetRequiredService<KafkaProtobufConsumerStates>()),
            failureStatus,
            tags));
    }
}
