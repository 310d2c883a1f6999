using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Health;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// The hosted consumers of this process as operators see them, and what operators may do to their partitions: pause,
/// resume, rewind. A singleton registered with the first hosted consumer; an operations page or a script takes it from
/// the service provider. Reading costs the consumers nothing (their state is read as it was last written); an action is
/// queued for the consumer's loop thread, which alone moves its partitions, and applied between records.
/// </summary>
public sealed class KafkaProtobufConsumerOperations
{
    /// <summary>How long an action waits for the consumer's loop to take it before it is withdrawn (<c>Busy</c>).</summary>
    internal static readonly TimeSpan ActionTimeout = TimeSpan.FromSeconds(10);

    private readonly KafkaProtobufConsumerStates _states;

    internal KafkaProtobufConsumerOperations(KafkaProtobufConsumerStates states) => _states = states;

    /// <summary>Every hosted consumer of this process, by name, as it is now.</summary>
    /// <returns>One snapshot per consumer.</returns>
    public IReadOnlyList<ConsumerSnapshot> GetConsumers() =>
        _states.All.OrderBy(s => s.Name, StringComparer.Ordinal).Select(Snapshot).ToList();

    /// <summary>
    /// Pauses a partition of a consumer: it stops fetching until <see cref="ResumeAsync"/> (records already taken are
    /// still handled). The pause holds while this member holds the partition; a rebalance that takes it away ends it.
    /// </summary>
    /// <param name="consumerName">The hosted consumer's name (as registered, and as snapshots name it).</param>
    /// <param name="topic">The topic.</param>
    /// <param name="partition">The partition number.</param>
    /// <param name="cancellationToken">Stops waiting (the request is withdrawn if the loop has not taken it).</param>
    /// <returns>What became of the request.</returns>
    /// <exception cref="ArgumentException">
    /// <paramref name="consumerName"/> or <paramref name="topic"/> is null or empty (thrown at the call).
    /// </exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="partition"/> is negative (thrown at the call).</exception>
    public Task<PartitionActionResult> PauseAsync(
        string consumerName, string topic, int partition, CancellationToken cancellationToken = default) =>
        RequestAsync(Checked(consumerName, topic, partition), OperatorAction.Pause, topic, partition, 0, cancellationToken);

    /// <summary>
    /// Resumes a partition an operator paused; one paused for another reason (the read-ahead budget, a record read again
    /// later) stays so until that ends.
    /// </summary>
    /// <inheritdoc cref="PauseAsync"/>
    public Task<PartitionActionResult> ResumeAsync(
        string consumerName, string topic, int partition, CancellationToken cancellationToken = default) =>
        RequestAsync(Checked(consumerName, topic, partition), OperatorAction.Resume, topic, partition, 0, cancellationToken);

    /// <summary>
    /// Rewinds a partition of a consumer: it reads again from <paramref name="offset"/> (at once, or when it resumes if
    /// paused), and its handler gets those records again; records already taken past it are still concluded. Only back:
    /// an offset past the consumer's position, or before the partition's start, is refused.
    /// </summary>
    /// <param name="consumerName">The hosted consumer's name (as registered, and as snapshots name it).</param>
    /// <param name="topic">The topic.</param>
    /// <param name="partition">The partition number.</param>
    /// <param name="offset">The first offset to read again.</param>
    /// <param name="cancellationToken">Stops waiting (the request is withdrawn if the loop has not taken it).</param>
    /// <returns>What became of the request.</returns>
    /// <exception cref="ArgumentException">
    /// <paramref name="consumerName"/> or <paramref name="topic"/> is null or empty (thrown at the call).
    /// </exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="partition"/> is negative (thrown at the call).</exception>
    public Task<PartitionActionResult> RewindAsync(
        string consumerName, string topic, int partition, long offset, CancellationToken cancellationToken = default) =>
        RequestAsync(Checked(consumerName, topic, partition), OperatorAction.Rewind, topic, partition, offset, cancellationToken);

    /// <summary>Refuses, at the call, what no request could use; the consumer's name.</summary>
    private static string Checked(string consumerName, string topic, int partition)
    {
        if (string.IsNullOrEmpty(consumerName))
        {
            throw new ArgumentException("A consumer name is needed.", nameof(consumerName));
        }

        if (string.IsNullOrEmpty(topic))
        {
            throw new ArgumentException("A topic is needed.", nameof(topic));
        }

        if (partition < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(partition), partition, "A partition number is 0 or more.");
        }

        return consumerName;
    }

    private async Task<PartitionActionResult> RequestAsync(
        string consumer, OperatorAction action, string topic, int partition, long offset, CancellationToken cancellationToken)
    {
        if (!_states.TryGet(consumer, out ConsumerStatus status))
        {
            return PartitionActionResult.UnknownConsumer;
        }

        var request = new OperatorRequest(action, new TopicPartition(topic, partition), offset);
        if (status.State != KafkaProtobufConsumerState.Running || !status.Requests.TryAdd(request))
        {
            return PartitionActionResult.NotRunning;
        }

        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(ActionTimeout);
        var gaveUp = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        using (timeout.Token.Register(() => gaveUp.TrySetResult(true)))
        {
            if (await Task.WhenAny(request.Done, gaveUp.Task).ConfigureAwait(false) == request.Done)
            {
                return await request.Done.ConfigureAwait(false);
            }
        }

        if (request.TryWithdraw())
        {
            cancellationToken.ThrowIfCancellationRequested();
            return PartitionActionResult.Busy;
        }

        return await request.Done.ConfigureAwait(false); // taken as we gave up: its answer is a moment away
    }

    private static ConsumerSnapshot Snapshot(ConsumerStatus status)
    {
        LatestError? error = status.LastError;
        IReadOnlyList<PartitionLag> measured = status.Lag.Latest;
        var partitions = measured
            .Concat(status.Lag.Assigned
                .Where(a => !measured.Any(m => m.Topic == a.Topic && m.Partition == a.Partition.Value))
                .Select(a => new PartitionLag(a.Topic, a.Partition.Value, 0))) // no position known yet: -1
            .OrderBy(p => p.Topic, StringComparer.Ordinal)
            .ThenBy(p => p.Partition)
            .Select(p => PartitionOf(status, p))
            .ToList();
        return new ConsumerSnapshot(
            status.Name,
            status.GroupId,
            status.Topics,
            status.DeadLetterTopic,
            status.State,
            status.Failure,
            string.IsNullOrEmpty(status.Lag.MemberId) ? null : status.Lag.MemberId,
            Math.Max(0, status.RecordsInHandlers),
            status.FailedAttempts,
            error?.Text,
            error?.At,
            partitions);
    }

    private static PartitionSnapshot PartitionOf(ConsumerStatus status, PartitionLag lag)
    {
        (PartitionPauses pauses, DateTimeOffset? until) = status.PausesOf(lag.Topic, lag.Partition);
        string? waiting = status.WaitingOf(lag.Topic, lag.Partition);
        long? position = lag.Position < 0 ? null : lag.Position, end = lag.End < 0 ? null : lag.End;
        long? records = position is null || end is null ? null : lag.Records;
        return new PartitionSnapshot(lag.Topic, lag.Partition, position, end, records, pauses, until, waiting);
    }
}
