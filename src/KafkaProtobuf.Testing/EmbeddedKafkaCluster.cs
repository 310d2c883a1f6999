using System;
using System.Collections.Concurrent;
using System.Globalization;
using System.Runtime.InteropServices;
using Confluent.Kafka;

namespace KafkaProtobuf.Testing;

/// <summary>
/// A Kafka cluster inside the current process: librdkafka's mock cluster, which speaks the Kafka protocol on
/// 127.0.0.1 ports of its own. Point any Confluent.Kafka producer, consumer or admin client at
/// <see cref="BootstrapServers"/>. Start several in one process if you like; dispose each when done (dispose the
/// clients connected to it first).
/// </summary>
/// <remarks>
/// <para>
/// It is a test double, not a broker: no persistence, no security, no transactions across restarts, and admin
/// <c>CreateTopics</c> is not supported by the mock (use <see cref="CreateTopic"/>); topics a client asks for by
/// name are created on the fly with 4 partitions. Consumer-group joins work but take a few seconds; assigning partitions
/// directly avoids the wait.
/// </para>
/// <para>
/// Producers that must not lose or reorder records under the mock's simulated behaviour should use
/// <see cref="CreateProducerConfig"/> (acks=all, idempotence), which is what the end-to-end tests use.
/// </para>
/// </remarks>
public sealed partial class EmbeddedKafkaCluster : IDisposable
{
    private const int ErrorBufferSize = 512;

    private readonly MockClusterHandle _handle;

    // Partition counts of the topics created through CreateTopic, so faults can be checked against them.
    private readonly ConcurrentDictionary<string, int> _topics = new(StringComparer.Ordinal);

    private EmbeddedKafkaCluster(MockClusterHandle handle, int brokerCount)
    {
        _handle = handle;
        BrokerCount = brokerCount;
        BootstrapServers = Marshal.PtrToStringUTF8(LibRdKafka.MockClusterBootstraps(handle.DangerousGetHandle()))
            ?? throw new InvalidOperationException("librdkafka's mock cluster reported no bootstrap servers.");
    }

    /// <summary>The brokers' addresses, e.g. <c>127.0.0.1:40123,127.0.0.1:40125,127.0.0.1:40127</c>.</summary>
    public string BootstrapServers { get; }

    /// <summary>How many brokers the cluster has.</summary>
    public int BrokerCount { get; }

    /// <summary>Starts a cluster with three brokers.</summary>
    /// <returns>The running cluster.</returns>
    public static EmbeddedKafkaCluster Start() => Start(3);

    /// <summary>Starts a cluster with <paramref name="brokerCount"/> brokers.</summary>
    /// <param name="brokerCount">How many brokers, at least 1.</param>
    /// <returns>The running cluster.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="brokerCount"/> is less than 1.</exception>
    /// <exception cref="InvalidOperationException">librdkafka could not create the cluster.</exception>
    public static EmbeddedKafkaCluster Start(int brokerCount)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(brokerCount, 1);
        return new EmbeddedKafkaCluster(MockClusterHandle.Create(brokerCount), brokerCount);
    }

    /// <summary>Creates a topic with the given number of partitions.</summary>
    /// <param name="name">The topic name.</param>
    /// <param name="partitions">How many partitions, at least 1.</param>
    /// <exception cref="ArgumentException"><paramref name="name"/> is null or empty.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="partitions"/> is less than 1.</exception>
    /// <exception cref="KafkaException">The mock refused, e.g. the topic already exists.</exception>
    /// <exception cref="ObjectDisposedException">The cluster was disposed.</exception>
    public void CreateTopic(string name, int partitions)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        ArgumentOutOfRangeException.ThrowIfLessThan(partitions, 1);
        int error = Invoke(cluster => LibRdKafka.MockTopicCreate(cluster, name, partitions, Math.Min(BrokerCount, 3)));
        if (error != 0)
        {
            throw new KafkaException(new Error((ErrorCode)error, $"Cannot create topic '{name}': {ErrorText(error)}"));
        }

        _topics[name] = partitions;
    }

    /// <summary>
    /// Sets how long a new consumer group waits for more members before its first rebalance (Kafka's
    /// <c>group.initial.rebalance.delay.ms</c>; 3 s by default, as on a broker). <see cref="TimeSpan.Zero"/> makes
    /// the first consumer of a group start at once. It applies to every empty group's next join.
    /// </summary>
    /// <param name="delay">The delay, whole milliseconds.</param>
    /// <exception cref="ArgumentOutOfRangeException">The delay is negative or longer than <see cref="int.MaxValue"/> ms.</exception>
    /// <exception cref="ObjectDisposedException">The cluster was disposed.</exception>
    public void SetGroupInitialRebalanceDelay(TimeSpan delay)
    {
        int milliseconds = Milliseconds(delay, nameof(delay));
        Invoke(cluster =>
        {
            LibRdKafka.MockGroupInitialRebalanceDelay(cluster, milliseconds);
            return 0;
        });
    }

    /// <summary>
    /// Sets the session of members of KIP-848 consumer groups (<c>group.protocol=consumer</c>), which the broker owns
    /// under that protocol (Kafka's <c>group.consumer.session.timeout.ms</c> and
    /// <c>group.consumer.heartbeat.interval.ms</c>; the clients may not set them). A member not heard from for
    /// <paramref name="sessionTimeout"/> is removed and its partitions given to others. Classic groups keep using the
    /// clients' <c>session.timeout.ms</c>. Applies to members that join afterwards.
    /// </summary>
    /// <param name="sessionTimeout">How long a silent member keeps its partitions, whole milliseconds.</param>
    /// <param name="heartbeatInterval">How often members are told to heartbeat, whole milliseconds, shorter than <paramref name="sessionTimeout"/>.</param>
    /// <exception cref="ArgumentOutOfRangeException">A value is not positive, is longer than <see cref="int.MaxValue"/> ms, or the interval is not shorter than the timeout.</exception>
    /// <exception cref="ObjectDisposedException">The cluster was disposed.</exception>
    public void SetConsumerGroupSession(TimeSpan sessionTimeout, TimeSpan heartbeatInterval)
    {
        int session = Milliseconds(sessionTimeout, nameof(sessionTimeout));
        int heartbeat = Milliseconds(heartbeatInterval, nameof(heartbeatInterval));
        if (session == 0 || heartbeat == 0 || heartbeat >= session)
        {
            throw new ArgumentOutOfRangeException(heartbeat == 0 || heartbeat >= session ? nameof(heartbeatInterval) : nameof(sessionTimeout), $"The session timeout ({session} ms) and heartbeat interval ({heartbeat} ms) must be positive, the interval the shorter.");
        }

        Invoke(cluster =>
        {
            LibRdKafka.MockGroupConsumerSessionTimeout(cluster, session);
            LibRdKafka.MockGroupConsumerHeartbeatInterval(cluster, heartbeat);
            return 0;
        });
    }

    /// <summary>
    /// A producer configuration for this cluster that neither loses nor duplicates records: acks=all and
    /// idempotence on. A new object each call, for you to adjust.
    /// </summary>
    /// <returns>The configuration.</returns>
    public ProducerConfig CreateProducerConfig() => RecommendedProducerConfig(BootstrapServers);

    /// <summary>
    /// A consumer configuration for this cluster: a new unique group id, reading from the earliest offset, manual
    /// commits and a short session timeout so that restarts in tests are quick. A new object each call.
    /// </summary>
    /// <returns>The configuration.</returns>
    public ConsumerConfig CreateConsumerConfig() => CreateConsumerConfig("embedded-" + Guid.NewGuid().ToString("N"));

    /// <summary>Like <see cref="CreateConsumerConfig()"/>, with the given group id (to share a group between consumers).</summary>
    /// <param name="groupId">The consumer group id.</param>
    /// <returns>The configuration.</returns>
    public ConsumerConfig CreateConsumerConfig(string groupId) => RecommendedConsumerConfig(BootstrapServers, groupId);

    /// <summary>
    /// The producer settings of <see cref="CreateProducerConfig"/> for any cluster, e.g. a real one that tests run
    /// against instead of the embedded one: acks=all and idempotence on (without them records went missing).
    /// </summary>
    /// <param name="bootstrapServers">The cluster's bootstrap servers.</param>
    /// <returns>A new configuration.</returns>
    public static ProducerConfig RecommendedProducerConfig(string bootstrapServers) => new()
    {
        BootstrapServers = bootstrapServers,
        Acks = Acks.All,
        EnableIdempotence = true,
    };

    /// <summary>
    /// The consumer settings of <see cref="CreateConsumerConfig(string)"/> for any cluster: earliest offset, manual
    /// commits, a short session timeout.
    /// </summary>
    /// <param name="bootstrapServers">The cluster's bootstrap servers.</param>
    /// <param name="groupId">The consumer group id.</param>
    /// <returns>A new configuration.</returns>
    public static ConsumerConfig RecommendedConsumerConfig(string bootstrapServers, string groupId) => new()
    {
        BootstrapServers = bootstrapServers,
        GroupId = groupId,
        AutoOffsetReset = AutoOffsetReset.Earliest,
        EnableAutoCommit = false,
        SessionTimeoutMs = 6000,
        HeartbeatIntervalMs = 500,
    };

    /// <summary>Stops the brokers and frees the native cluster. Safe to call more than once.</summary>
    public void Dispose() => _handle.Dispose();

    /// <summary>
    /// Calls librdkafka with the native cluster, which cannot be freed meanwhile by a concurrent <see cref="Dispose"/>.
    /// </summary>
    private T Invoke<T>(Func<IntPtr, T> call)
    {
        ObjectDisposedException.ThrowIf(_handle.IsClosed, this);
        bool added = false;
        try
        {
            _handle.DangerousAddRef(ref added); // throws ObjectDisposedException if Dispose won the race
            return call(_handle.DangerousGetHandle());
        }
        finally
        {
            if (added)
            {
                _handle.DangerousRelease();
            }
        }
    }

    private static string ErrorText(int error) => Marshal.PtrToStringUTF8(LibRdKafka.ErrorToString(error)) ?? "error " + error.ToString(CultureInfo.InvariantCulture);

    /// <summary>Owns the mock cluster and the librdkafka instance it runs on; destroys them in that order.</summary>
    private sealed class MockClusterHandle : SafeHandle
    {
        private IntPtr _client;

        private MockClusterHandle()
            : base(IntPtr.Zero, ownsHandle: true)
        {
        }

        public override bool IsInvalid => handle == IntPtr.Zero;

        internal static MockClusterHandle Create(int brokerCount)
        {
            byte[] errors = new byte[ErrorBufferSize];
            IntPtr conf = LibRdKafka.ConfNew();
            // The mock logs every broker start at notice level; warnings and errors still reach stderr.
            LibRdKafka.ConfSet(conf, "log_level", "4", errors, (UIntPtr)errors.Length);
            IntPtr client = LibRdKafka.New(LibRdKafka.ProducerType, conf, errors, (UIntPtr)errors.Length);
            if (client == IntPtr.Zero)
            {
                LibRdKafka.ConfDestroy(conf); // rd_kafka_new owns the configuration only when it succeeds
                throw new InvalidOperationException("librdkafka could not create a client for the mock cluster: " + LibRdKafka.ErrorText(errors));
            }

            var result = new MockClusterHandle();
            IntPtr cluster = LibRdKafka.MockClusterNew(client, brokerCount);
            if (cluster == IntPtr.Zero)
            {
                LibRdKafka.Destroy(client);
                throw new InvalidOperationException(string.Create(CultureInfo.InvariantCulture, $"librdkafka could not start a mock cluster of {brokerCount} brokers."));
            }

            // Counted from the start, so RequestCount sees every request a client ever sent.
            LibRdKafka.MockStartRequestTracking(cluster);
            result._client = client;
            result.SetHandle(cluster);
            return result;
        }

        protected override bool ReleaseHandle()
        {
            LibRdKafka.MockClusterDestroy(handle);
            LibRdKafka.Destroy(_client);
            _client = IntPtr.Zero;
            return true;
        }
    }
}
