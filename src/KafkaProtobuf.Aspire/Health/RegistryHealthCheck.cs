using System;
using System.Threading;
using System.Threading.Tasks;
using KafkaProtobuf.SchemaRegistry;
using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace KafkaProtobuf.Aspire.Health;

/// <summary>
/// Healthy while the registry answers a read with this client's credentials (<c>GET /schemas/types</c>): no write
/// rights needed, nothing registered. A failing registry is reported with its status and error code, never its secrets.
/// </summary>
internal sealed class RegistryHealthCheck(RegistryClient registry) : IHealthCheck
{
    public async Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        try
        {
            await registry.GetSchemaTypesAsync(cancellationToken).ConfigureAwait(false);
            return HealthCheckResult.Healthy("The Schema Registry answers.");
        }
        catch (SchemaRegistryRequestException e)
        {
            return new HealthCheckResult(context.Registration.FailureStatus, "The Schema Registry does not answer: " + e.Message, e);
        }
        catch (Exception e) when (e is TimeoutException or OperationCanceledException && !cancellationToken.IsCancellationRequested)
        {
            return new HealthCheckResult(context.Registration.FailureStatus, "The Schema Registry did not answer in time.", e);
        }
    }
}
