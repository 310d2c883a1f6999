using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace KafkaProtobuf.Hosting.Health;

/// <summary>
/// The health of every hosted consumer: unhealthy when one has stopped or failed, degraded while a partition of one waits
/// (for a writer's schema it cannot obtain, or to write a dead letter the broker does not take; whatever its other
/// partitions do) or its handler keeps failing on a record, healthy otherwise. Each consumer's state is in the result's data.
/// </summary>
internal sealed class KafkaProtobufConsumersHealthCheck(KafkaProtobufConsumerStates states) : IHealthCheck
{
    public Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        var data = new Dictionary<string, object>();
        var unhealthy = new List<string>();
        var degraded = new List<string>();
        foreach (ConsumerStatus consumer in states.All.OrderBy(c => c.Name, System.StringComparer.Ordinal))
        {
            data[consumer.Name] = consumer.State.ToString();
            switch (consumer.State)
            {
                case KafkaProtobufConsumerState.Failed:
                    unhealthy.Add(consumer.Name + " failed: " + consumer.Failure);
                    break;
                case KafkaProtobufConsumerState.Stopped:
                    unhealthy.Add(consumer.Name + " has stopped");
                    break;
                case KafkaProtobufConsumerState.Running when consumer.IsWaiting:
                    foreach ((string what, IReadOnlyList<string> partitions, string why) in consumer.Waiting())
                    {
                        degraded.Add(consumer.Name + " cannot " + what + " for " + string.Join(", ", partitions) + " (" + why + ")");
                    }

                    break;
                case KafkaProtobufConsumerState.Running when consumer.FailedAttempts > 0:
                    degraded.Add(consumer.Name + "'s handler has failed " + Times(consumer.FailedAttempts) + " on a record");
                    break;
            }
        }

        HealthCheckResult result = unhealthy.Count > 0 ? new HealthCheckResult(context.Registration.FailureStatus, string.Join("; ", unhealthy.Concat(degraded)), data: data)
            : degraded.Count > 0 ? HealthCheckResult.Degraded(string.Join("; ", degraded), data: data)
            : HealthCheckResult.Healthy(data.Count == 0 ? "no KafkaProtobuf consumers" : "every KafkaProtobuf consumer is running", data);
        return Task.FromResult(result);
    }

    private static string Times(int count) => count == 1 ? "once" : count == 2 ? "twice" : count.ToString(System.Globalization.CultureInfo.InvariantCulture) + " times";
}
