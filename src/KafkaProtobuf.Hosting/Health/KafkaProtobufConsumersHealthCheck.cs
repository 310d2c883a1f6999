using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KafkaProtobuf.Hosting.Diagnostics;
using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace KafkaProtobuf.Hosting.Health;

/// <summary>
/// The health of every hosted consumer: unhealthy when one has stopped or failed, degraded while a partition of one waits
/// (for a writer's schema it cannot obtain, or to write a dead letter the broker does not take; whatever its other
/// partitions do), its handler keeps failing on a record, or a partition lags past
/// <see cref="KafkaProtobufConsumerOptions.LagDegradedThreshold"/> (unhealthy past
/// <see cref="KafkaProtobufConsumerOptions.LagUnhealthyThreshold"/>), healthy otherwise. Each consumer's state is in the result's data.
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

            if (consumer.State == KafkaProtobufConsumerState.Running)
            {
                Lagging(consumer, consumer.LagUnhealthyThreshold, unhealthy);
                Lagging(consumer, consumer.LagDegradedThreshold, degraded, below: consumer.LagUnhealthyThreshold);
            }
        }

        HealthCheckResult result = unhealthy.Count > 0
            ? new HealthCheckResult(context.Registration.FailureStatus, string.Join("; ", unhealthy.Concat(degraded)), data: data)
            : degraded.Count > 0 ? HealthCheckResult.Degraded(string.Join("; ", degraded), data: data)
            : HealthCheckResult.Healthy(data.Count == 0 ? "no KafkaProtobuf consumers" : "every KafkaProtobuf consumer is running", data);
        return Task.FromResult(result);
    }

    /// <summary>
    /// Partitions lagging more than <paramref name="threshold"/> (0: never) and, when given, not more than
    /// <paramref name="below"/> (reported at the level above).
    /// </summary>
    private static void Lagging(ConsumerStatus consumer, long threshold, List<string> into, long below = 0)
    {
        if (threshold <= 0)
        {
            return;
        }

        var lagging = consumer.Lag.Latest
            .Where(p => p.Records > threshold && (below <= 0 || p.Records <= below))
            .OrderByDescending(p => p.Records)
            .ToList();
        if (lagging.Count > 0)
        {
            System.Globalization.CultureInfo invariant = System.Globalization.CultureInfo.InvariantCulture;
            IEnumerable<string> each = lagging.Take(5)
                .Select(p => p.Topic + " [" + p.Partition.ToString(invariant) + "]: " + p.Records.ToString("N0", invariant));
            string partitions = string.Join(", ", each);
            string more = lagging.Count > 5 ? " and " + (lagging.Count - 5).ToString(invariant) + " more partitions" : string.Empty;
            into.Add(consumer.Name + " lags more than " + threshold.ToString("N0", invariant) + " records on " + partitions + more);
        }
    }

    private static string Times(int count) => count == 1
        ? "once"
        : count == 2
        ? "twice"
        : count.ToString(System.Globalization.CultureInfo.InvariantCulture) + " times";
}
