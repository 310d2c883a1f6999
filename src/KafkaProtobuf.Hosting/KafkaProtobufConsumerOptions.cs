using System;
using System.Collections.Generic;
using System.Linq;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// One hosted consumer: what it reads, where poison records and failed handlers' records go, how handler failures are
/// retried. Set in code or read from configuration
/// (<see cref="KafkaProtobufServiceCollectionExtensions.AddKafkaProtobufConsumer{TKey, TValue}(
/// Microsoft.Extensions.DependencyInjection.IServiceCollection, string, Microsoft.Extensions.Configuration.IConfiguration,
/// Action{KafkaProtobufConsumerOptions}?)"/>).
/// </summary>
public sealed class KafkaProtobufConsumerOptions
{
    /// <summary>
    /// The consumer's settings, with librdkafka's names in configuration (<c>bootstrap.servers</c>, <c>group.id</c>,
    /// <c>security.protocol</c>...). The hosted consumer owns offsets: it sets <c>enable.auto.offset.store</c> to false
    /// and <c>enable.auto.commit</c> to true, and refuses a configuration that says otherwise.
    /// </summary>
    public ConsumerConfig Consumer { get; set; } = new();

    /// <summary>
    /// The dead-letter producer's <c>message.max.bytes</c> unless <see cref="CopyProducer"/> sets it: librdkafka's
    /// largest.
    /// </summary>
    internal const int DeadLetterMessageMaxBytes = 1_000_000_000;

    /// <summary>The topics to subscribe to (at least one).</summary>
    public IList<string> Topics { get; } = new List<string>();

    /// <summary>
    /// Where records that cannot be deserialized, and records whose handler failed for good, are copied byte for byte.
    /// Without one, such a record stops the consumer (nothing is skipped silently).
    /// </summary>
    public string? DeadLetterTopic { get; set; }

    /// <summary>
    /// Settings for the producer that writes records' copies (dead letters, and copies to retry topics), laid over its
    /// defaults: the consumer's <c>bootstrap.servers</c>,
    /// <c>client.id</c> and security settings (<c>security.*</c>, <c>sasl.*</c>, <c>ssl.*</c>), <c>acks=all</c>,
    /// idempotence on, <c>message.timeout.ms</c> = <see cref="CopyTimeout"/> (at most half the consumer's
    /// <c>max.poll.interval.ms</c>, as the wait for a copy), and <c>message.max.bytes</c>
    /// 1,000,000,000 (librdkafka's largest), so that the producer takes any dead letter (its record plus at most
    /// <see cref="DeadLetters.DeadLetterMessages.MaxAddedBytes"/> a copy) and the dead-letter topic's
    /// <c>max.message.bytes</c> decides. Set only what differs (say <c>linger.ms</c>); what is set here wins. A
    /// <c>message.timeout.ms</c> longer than <see cref="CopyTimeout"/> is refused: the producer would go on
    /// delivering a copy the consumer gave up on and writes again.
    /// </summary>
    public ProducerConfig? CopyProducer { get; set; }

    /// <summary>
    /// How long a record's copy (a dead letter, or a copy to a retry topic) may take to be acknowledged, waiting
    /// included: the consumer waits this long, and the copy producer gives up on the message then too (its
    /// <c>message.timeout.ms</c>). Default 10 s. The consume loop does not poll while it waits, and librdkafka takes a
    /// member that has not polled for <c>max.poll.interval.ms</c> (300 s by default) out of its group: so a copy is
    /// waited for at most half of it, whatever this says (the consumer logs a warning at start when it cuts this), and
    /// a copy not acknowledged by then is written again after <see cref="ReadAgainDelay"/>.
    /// </summary>
    public TimeSpan CopyTimeout { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>
    /// How long a partition waits before a record is read again: after a dead letter that could not be written, or a
    /// writer's schema that could not be obtained (sequential mode: the consumer waits). Default 1 s.
    /// </summary>
    public TimeSpan ReadAgainDelay { get; set; } = TimeSpan.FromSeconds(1);

    /// <summary>
    /// How many handler calls may run at once: records, or with a batch handler, batches. 1 (the default): one at a
    /// time, in the order Consume gives them. More: partition-parallel — records of different partitions are handled at
    /// the same time, each partition's
    /// in order, and a record's offset is stored only once it and every earlier record of its partition are done. For
    /// handlers that wait on I/O; a handler must then be safe to run on several threads.
    /// </summary>
    public int MaxConcurrentHandlers { get; set; } = 1;

    /// <summary>
    /// Partition-parallel only: whether a partition's records are all handled one after another (the default), or only
    /// those with equal keys, so that one partition's records of different keys run at once too.
    /// </summary>
    public HandlingOrder HandlingOrder { get; set; } = HandlingOrder.Partition;

    /// <summary>
    /// Partition-parallel and batches: how much memory records taken and not yet done may hold, across all partitions
    /// (waiting for or in a handler, finished before an earlier one, in a batch being collected or handled). A record
    /// counts its key and value bytes as read (the copy kept for its dead letter) plus 512 bytes for the objects around
    /// them (its consume result, message and headers); twice its bytes in key order and in batches, where it is
    /// deserialized when consumed (its message taken to be as large; a batch counts the chunks its copies are in as
    /// large as they are); in partition order it is deserialized when a handler takes it. When the total reaches this,
    /// the partition that took the last record pauses its fetching (with a batch handler, its batch is handed over),
    /// and every partition paused so resumes once half of the budget is free. Default 64 MiB, as librdkafka's own
    /// <c>queued.max.messages.kbytes</c> (which comes on top: what librdkafka fetched and the loop has not taken yet).
    /// At least one record is always taken, however large; past the budget, each partition takes at most the record
    /// that took it past (with a batch handler, and the chunk of at most 256 KiB its bytes were copied into).
    /// </summary>
    public long MaxReadAheadBytes { get; set; } = 64L * 1024 * 1024;

    /// <summary>
    /// Partition-parallel only: how long a rebalance waits for the record in hand of each partition taken away before
    /// it lets the partition go (what finished by then is stored; the rest is read again by its new owner). Default 30 s.
    /// </summary>
    public TimeSpan RevokeTimeout { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// The health check reports the consumer <c>Degraded</c> while a partition of it lags more than this many records
    /// (its end, as the consumer last fetched it, past the last offset stored: records not yet handled). Default 10,000;
    /// 0 never. The lag is also the gauge <c>kafkaprotobuf.consumer.lag</c>, per partition.
    /// </summary>
    public long LagDegradedThreshold { get; set; } = 10_000;

    /// <summary>
    /// The health check reports the consumer <c>Unhealthy</c> while a partition lags more than this many records.
    /// Default 0, never: an orchestrator restarting a consumer for lagging would only add a rebalance to the backlog; set
    /// it where a lag that large means something else is wrong.
    /// </summary>
    public long LagUnhealthyThreshold { get; set; }

    /// <summary>
    /// Also record OpenTelemetry's messaging metrics (semantic conventions, marked development):
    /// <c>messaging.process.duration</c> (a histogram of each handler run, seconds) and
    /// <c>messaging.client.consumed.messages</c> (records handled), with <c>messaging.system</c>,
    /// <c>messaging.operation.name</c>, <c>messaging.consumer.group.name</c>, <c>messaging.destination.name</c>,
    /// <c>messaging.destination.partition.id</c> and <c>error.type</c>. Default <see langword="true"/>; nothing is
    /// measured while no one listens.
    /// </summary>
    public bool MessagingConventionMetrics { get; set; } = true;

    /// <summary>
    /// What happens when the handler throws (a batch handler: for the whole batch, then
    /// <see cref="BatchOptions.WhenBatchFails"/>).
    /// </summary>
    public HandlerFailureOptions HandlerFailures { get; } = new();

    /// <summary>With a batch handler (<c>HandleBatch</c>): how batches are made and what a failed one becomes.</summary>
    public BatchOptions Batches { get; } = new();

    /// <summary>
    /// Non-blocking retries: tiers of retry topics a record whose handler failed its in-place attempts goes through
    /// before the dead-letter topic, while its partition goes on. Off by default.
    /// </summary>
    public RetryTopicOptions RetryTopics { get; } = new();

    /// <summary>
    /// The keys every block this consumer appends is signed with (its dead letters, its retry copies), and the retry
    /// hops it reads back from its retry topics are verified with: a copy whose hops do not verify (or are unsigned) is
    /// handled where it is, not as the record it claims to be, and dead-lettered without a believed source. Give the same
    /// keys to every consumer of the group, the registrations that read its retry topics, and whatever reads its dead
    /// letters (the redrive, the operations page, the tool). Null (the default): blocks unsigned and read unchecked.
    /// Configuration: <c>ProvenanceKeys</c>, base64 keys as an array or a comma-separated string, the signing key first
    /// (from a secret store: configuration a process's environment or files give, never a setting checked in).
    /// </summary>
    public DeadLetters.ProvenanceKeys? ProvenanceKeys { get; set; }

    /// <summary>
    /// Whether a consumer that stops for good (a fatal Kafka error, a dead letter that cannot be written, a handler
    /// failure whose policy is to stop) stops the application too (<c>IHostApplicationLifetime.StopApplication</c>),
    /// with <see cref="FailureExitCode"/> as the process's exit code. Default <see langword="true"/>: a service whose
    /// consumer died should be restarted by its orchestrator, not keep running idle.
    /// </summary>
    public bool StopApplicationOnFailure { get; set; } = true;

    /// <summary>
    /// The process's exit code when a failed consumer stops the application (<see cref="Environment.ExitCode"/>, unless
    /// something set it first): what systemd's <c>Restart=on-failure</c>, Docker's <c>on-failure</c> policy and
    /// Kubernetes Jobs restart on. Default 1; 0 leaves the exit code alone. A <c>Main</c> that returns its own exit code
    /// must return <see cref="Environment.ExitCode"/> for this to reach the process.
    /// </summary>
    public int FailureExitCode { get; set; } = 1;
}
