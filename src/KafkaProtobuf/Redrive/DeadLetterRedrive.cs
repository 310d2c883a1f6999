using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;

namespace KafkaProtobuf.Redrive;

/// <summary>
/// Writes dead letters back where their records came from, byte for byte (key, value and the record's own headers;
/// without the headers dead-lettering and retry hops added; with <see cref="RedriveHeaderNames"/>), once the bug that
/// sent them there is fixed. Reads the dead-letter topic up to where it ended when the run started, in a consumer
/// group of its own (<see cref="RedriveOptions.GroupId"/>), so a run that stops resumes where it stopped; writes with an
/// idempotent producer and commits a dead letter's offset only once what it wrote is acknowledged: safe to stop and to
/// run again (a record is written twice only if the run dies between the acknowledgement and the commit).
/// </summary>
public static class DeadLetterRedrive
{
    /// <summary>Runs a redrive on a thread of the pool.</summary>
    /// <inheritdoc cref="Run"/>
    public static Task<RedriveSummary> RunAsync(ClientConfig kafka, RedriveOptions options, Action<DeadLetter, RedriveOutcome>? onDeadLetter = null, CancellationToken cancellationToken = default)
    {
        Check(kafka, options);
        return Task.Run(() => Run(kafka, options, onDeadLetter, cancellationToken), CancellationToken.None);
    }

    /// <summary>Runs a redrive: every dead letter in the topic when it starts, from where the group's last run stopped.</summary>
    /// <param name="kafka">How to reach the cluster (bootstrap servers, security); the consumer's and producer's own settings are the redrive's.</param>
    /// <param name="options">What to redrive, and where.</param>
    /// <param name="onDeadLetter">Told of each dead letter read and what was done with it (on the run's thread; keep it short).</param>
    /// <param name="cancellationToken">Stops the run early: what was written is acknowledged and committed first.</param>
    /// <returns>What it did.</returns>
    /// <exception cref="ArgumentException">The options break a rule.</exception>
    /// <exception cref="InvalidOperationException">The dead-letter topic does not exist.</exception>
    /// <exception cref="KafkaException">The cluster could not be asked (metadata, committed offsets, watermarks).</exception>
    public static RedriveSummary Run(ClientConfig kafka, RedriveOptions options, Action<DeadLetter, RedriveOutcome>? onDeadLetter = null, CancellationToken cancellationToken = default)
    {
        Check(kafka, options);
#pragma warning disable CS0618 // the one dry-run path: a plan's
        if (options.DryRun)
        {
            return Plan(kafka, options, onDeadLetter, cancellationToken).DryRun;
        }
#pragma warning restore CS0618

        return Execute(kafka, options, onDeadLetter, null, cancellationToken).Summary;
    }

    /// <summary>
    /// A dry run that leaves a plan: what a redrive with these options would write now, which
    /// <see cref="RedrivePlan.RunAsync(CancellationToken)"/> then writes, exactly: the same filters, up to where this dry
    /// run read (dead letters that arrive later wait for another plan), once. The one dry run there is
    /// (<see cref="RedriveOptions.DryRun"/> runs this one).
    /// </summary>
    /// <param name="kafka">How to reach the cluster (bootstrap servers, security).</param>
    /// <param name="options">What to redrive, and where. Copied.</param>
    /// <param name="cancellationToken">Stops the dry run.</param>
    /// <returns>The plan.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="kafka"/> or <paramref name="options"/> is null (thrown at the call).</exception>
    /// <exception cref="ArgumentException">The options break a rule, or ask for a dry run (a plan is one already): thrown at the call.</exception>
    /// <exception cref="InvalidOperationException">The dead-letter topic does not exist.</exception>
    /// <exception cref="KafkaException">The cluster could not be asked (metadata, committed offsets, watermarks).</exception>
    /// <exception cref="OperationCanceledException">Cancelled before the dry run read everything.</exception>
    public static Task<RedrivePlan> PlanAsync(ClientConfig kafka, RedriveOptions options, CancellationToken cancellationToken = default)
    {
        Check(kafka, options);
#pragma warning disable CS0618
        if (options.DryRun)
        {
            throw new ArgumentException("A plan is a dry run already: leave RedriveOptions.DryRun unset (it is obsolete), and run the plan to write.", nameof(options));
        }
#pragma warning restore CS0618

        return Task.Run(() => Plan(kafka, options, null, cancellationToken), CancellationToken.None);
    }

    /// <summary>Refuses, at the call, what no run could use.</summary>
    private static void Check(ClientConfig kafka, RedriveOptions options)
    {
        if (kafka is null)
        {
            throw new ArgumentNullException(nameof(kafka));
        }

        if (options is null)
        {
            throw new ArgumentNullException(nameof(options));
        }

        options.Validate();
    }

    private static RedrivePlan Plan(ClientConfig kafka, RedriveOptions options, Action<DeadLetter, RedriveOutcome>? onDeadLetter, CancellationToken cancellationToken)
    {
        RedriveOptions dryRun = options.Copy(dryRun: true);
        var entries = new List<RedrivePlanEntry>();
        long listable = 0;
        (RedriveSummary summary, IReadOnlyDictionary<int, long> ends) = Execute(
            kafka,
            dryRun,
            (letter, outcome) =>
            {
                // What the filters leave out is counted, not listed: the list is what the run would touch.
                if (outcome != RedriveOutcome.SkippedByFilter && ++listable <= RedrivePlan.MaxListedDeadLetters)
                {
                    entries.Add(new RedrivePlanEntry(letter, outcome));
                }

                onDeadLetter?.Invoke(letter, outcome);
            },
            null,
            cancellationToken);
        if (!summary.Completed)
        {
            cancellationToken.ThrowIfCancellationRequested();
            throw new InvalidOperationException("The dry run did not read every dead letter: " + summary.Failure);
        }

        return new RedrivePlan(new ClientConfig(kafka.ToDictionary(p => p.Key, p => p.Value)), options.Copy(dryRun: false), summary, entries, listable > entries.Count, ends);
    }

    /// <summary>A run: the redrive's own consumer and producer, reading up to the ends it starts at, or the plan's.</summary>
    internal static (RedriveSummary Summary, IReadOnlyDictionary<int, long> Ends) Execute(
        ClientConfig kafka, RedriveOptions options, Action<DeadLetter, RedriveOutcome>? onDeadLetter, IReadOnlyDictionary<int, long>? plannedEnds, CancellationToken cancellationToken)
    {
        var consumerConfig = new ConsumerConfig(new ClientConfig(kafka.ToDictionary(p => p.Key, p => p.Value)))
        {
            GroupId = options.EffectiveGroupId,
            EnableAutoCommit = false,
            EnableAutoOffsetStore = false,
            EnablePartitionEof = true,
            AutoOffsetReset = AutoOffsetReset.Earliest,
            IsolationLevel = IsolationLevel.ReadCommitted,
            AllowAutoCreateTopics = false,
        };
        var producerConfig = new ProducerConfig(new ClientConfig(kafka.ToDictionary(p => p.Key, p => p.Value)))
        {
            EnableIdempotence = true,
            Acks = Acks.All,
        };
        producerConfig.Set("allow.auto.create.topics", "false"); // a redrive writes where records were; it never makes a topic up

        using IConsumer<byte[], byte[]> consumer = new ConsumerBuilder<byte[], byte[]>(consumerConfig).Build();
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(producerConfig).Build();
        var run = new RedriveRun(consumer, producer, options, onDeadLetter, plannedEnds);
        return (run.Execute(cancellationToken), run.Ends);
    }
}
