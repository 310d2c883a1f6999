using System;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace KafkaProtobuf.Aspire.Health;

/// <summary>
/// Healthy while a broker answers a metadata request on the producer's own connections. Nothing is written, so the
/// check needs no write rights and no topic of its own (Aspire.Confluent.Kafka's check produces to one).
/// </summary>
internal sealed class ProducerHealthCheck(Func<Handle> producer) : IHealthCheck
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(5);

    public Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default) =>
        Task.Run(
            () =>
            {
                try
                {
                    using IAdminClient admin = new DependentAdminClientBuilder(producer()).Build();
                    Metadata metadata = admin.GetMetadata(Timeout);
                    return HealthCheckResult.Healthy("Kafka answers: " + metadata.Brokers.Count + " broker(s).");
                }
                catch (KafkaException e)
                {
                    return new HealthCheckResult(context.Registration.FailureStatus, "Kafka does not answer: " + e.Error.Reason, e);
                }
            },
            cancellationToken);
}
