using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Runtime.InteropServices;
using Confluent.Kafka;

namespace KafkaProtobuf.Testing;

/// <summary>Faults on purpose: librdkafka's mock-cluster fault injection, checked and typed.</summary>
/// <remarks>
/// Every call is safe while clients are connected: librdkafka applies it on the mock cluster's own thread or under its
/// lock. Brokers are numbered 1 to <see cref="BrokerCount"/>.
/// </remarks>
public sealed partial class EmbeddedKafkaCluster
{
    /// <summary>The broker id that stands for "no leader" in <see cref="SetPartitionLeader"/>.</summary>
    public const int NoLeader = -1;

    private const string GroupCoordinatorKeyType = "group";

    /// <summary>The brokers' ids: 1 to <see cref="BrokerCount"/>.</summary>
    public IReadOnlyList<int> BrokerIds => Enumerable.Range(1, BrokerCount).ToArray();

    /// <summary>
    /// Takes a broker down: its connections are closed and new ones refused, until <see cref="SetBrokerUp"/>. Like a
    /// crashed broker whose partitions are not reassigned: partitions it leads are unavailable meanwhile (move them
    /// with <see cref="SetPartitionLeader"/>). Taking a broker down twice is the same as once.
    /// </summary>
    /// <param name="brokerId">The broker, 1 to <see cref="BrokerCount"/>.</param>
    /// <exception cref="ArgumentOutOfRangeException">No such broker.</exception>
    /// <exception cref="ObjectDisposedException">The cluster was disposed.</exception>
    public void SetBrokerDown(int brokerId)
    {
        CheckBroker(brokerId);
        ThrowIfFailed(Invoke(cluster => LibRdKafka.MockBrokerSetDown(cluster, brokerId)), "take broker " + brokerId + " down");
    }

    /// <summary>Brings a broker taken down by <see cref="SetBrokerDown"/> back, on the same port.</summary>
    /// <param name="brokerId">The broker, 1 to <see cref="BrokerCount"/>.</param>
    /// <exception cref="ArgumentOutOfRangeException">No such broker.</exception>
    /// <exception cref="ObjectDisposedException">The cluster was disposed.</exception>
    public void SetBrokerUp(int brokerId)
    {
        CheckBroker(brokerId);
        ThrowIfFailed(Invoke(cluster => LibRdKafka.MockBrokerSetUp(cluster, brokerId)), "bring broker " + brokerId + " up");
    }

    /// <summary>Delays every response of a broker by <paramref name="delay"/> (a slow broker); <see cref="TimeSpan.Zero"/> ends it.</summary>
    /// <param name="brokerId">The broker, 1 to <see cref="BrokerCount"/>.</param>
    /// <param name="delay">The added round-trip time, whole milliseconds, at most <see cref="int.MaxValue"/> ms.</param>
    /// <exception cref="ArgumentOutOfRangeException">No such broker, or the delay is negative or too long.</exception>
    /// <exception cref="ObjectDisposedException">The cluster was disposed.</exception>
    public void SetBrokerRoundTripTime(int brokerId, TimeSpan delay)
    {
        CheckBroker(brokerId);
        int milliseconds = Milliseconds(delay, nameof(delay));
        ThrowIfFailed(Invoke(cluster => LibRdKafka.MockBrokerSetRtt(cluster, brokerId, milliseconds)), "set broker " + brokerId + "'s round-trip time");
    }

    /// <summary>
    /// Moves a partition's leadership to another broker, as a broker failure or a reassignment would; clients learn it
    /// from their next metadata request. <see cref="NoLeader"/> leaves the partition without a leader (unavailable)
    /// until it is given one again.
    /// </summary>
    /// <remarks>
    /// <see cref="NoLeader"/> only for a partition no connected client has produced to or fetched from yet:
    /// librdkafka 2.16's mock answers a Produce or Fetch request for a leaderless partition by reading the missing
    /// leader's id, which crashes the whole process. A client that already knows the old leader sends exactly such a
    /// request. To make a partition in use unavailable, use
    /// <see cref="FailNextPartitionRequests(string, int, KafkaApi, ErrorCode, int)"/> with
    /// <see cref="ErrorCode.LeaderNotAvailable"/>.
    /// </remarks>
    /// <param name="topic">A topic created by <see cref="CreateTopic"/> or by a client.</param>
    /// <param name="partition">The partition.</param>
    /// <param name="brokerId">The new leader, 1 to <see cref="BrokerCount"/>, or <see cref="NoLeader"/>.</param>
    /// <exception cref="ArgumentException">No such topic or partition.</exception>
    /// <exception cref="ArgumentOutOfRangeException">No such broker.</exception>
    /// <exception cref="ObjectDisposedException">The cluster was disposed.</exception>
    public void SetPartitionLeader(string topic, int partition, int brokerId)
    {
        if (brokerId != NoLeader)
        {
            CheckBroker(brokerId);
        }

        CheckPartition(topic, partition);
        ThrowIfFailed(
            Invoke(cluster => LibRdKafka.MockPartitionSetLeader(cluster, topic, partition, brokerId)),
            string.Create(CultureInfo.InvariantCulture, $"move the leader of {topic} [{partition}] to broker {brokerId}"));
    }

    /// <summary>
    /// Makes another broker the coordinator of a consumer group. The old coordinator answers the group's membership
    /// requests (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) with <c>NOT_COORDINATOR</c>, so members look the
    /// coordinator up again, as after a coordinator failover. (The mock serves OffsetCommit and OffsetFetch on any
    /// broker; fail those with <see cref="FailNextRequests(KafkaApi, ErrorCode, int)"/>.)
    /// </summary>
    /// <param name="groupId">The consumer group id.</param>
    /// <param name="brokerId">The new coordinator, 1 to <see cref="BrokerCount"/>.</param>
    /// <exception cref="ArgumentException"><paramref name="groupId"/> is null or empty.</exception>
    /// <exception cref="ArgumentOutOfRangeException">No such broker.</exception>
    /// <exception cref="ObjectDisposedException">The cluster was disposed.</exception>
    public void SetGroupCoordinator(string groupId, int brokerId)
    {
        ArgumentException.ThrowIfNullOrEmpty(groupId);
        CheckBroker(brokerId);
        ThrowIfFailed(
            Invoke(cluster => LibRdKafka.MockCoordinatorSet(cluster, GroupCoordinatorKeyType, groupId, brokerId)),
            "move the coordinator of group '" + groupId + "' to broker " + brokerId);
    }

    /// <summary>
    /// Makes the next <paramref name="count"/> requests of <paramref name="api"/>, to any broker, fail with
    /// <paramref name="error"/>. Failures pushed earlier for the same API come first.
    /// <see cref="ErrorCode.Local_Transport"/> closes the connection instead of answering.
    /// </summary>
    /// <param name="api">The request type.</param>
    /// <param name="error">A Kafka protocol error code (e.g. <see cref="ErrorCode.NotCoordinatorForGroup"/>), or <see cref="ErrorCode.Local_Transport"/>.</param>
    /// <param name="count">How many requests fail, at least 1.</param>
    /// <exception cref="ArgumentOutOfRangeException">The API or error is not a defined value, the error is <see cref="ErrorCode.NoError"/>, or the count is less than 1.</exception>
    /// <exception cref="ObjectDisposedException">The cluster was disposed.</exception>
    /// <remarks>The failures are the cluster's, not one client's: whichever client sends the next such request gets one.</remarks>
    public void FailNextRequests(KafkaApi api, ErrorCode error, int count)
    {
        CheckApi(api);
        CheckError(error, allowNoError: false);
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        int[] errors = Enumerable.Repeat((int)error, count).ToArray();
        Invoke(cluster =>
        {
            LibRdKafka.MockPushRequestErrorsArray(cluster, (short)api, (UIntPtr)errors.Length, errors);
            return 0;
        });
    }

    /// <summary>
    /// Makes the next <paramref name="count"/> requests of <paramref name="api"/> to one broker answer after
    /// <paramref name="delay"/> with <paramref name="error"/> (<see cref="ErrorCode.NoError"/>: a slow success).
    /// These are served before <see cref="FailNextRequests(KafkaApi, ErrorCode, int)"/>'s cluster-wide failures.
    /// </summary>
    /// <param name="brokerId">The broker, 1 to <see cref="BrokerCount"/>.</param>
    /// <param name="api">The request type.</param>
    /// <param name="error">A Kafka protocol error code, or <see cref="ErrorCode.NoError"/> for a delay alone.</param>
    /// <param name="count">How many requests, at least 1.</param>
    /// <param name="delay">How long each response is held, whole milliseconds.</param>
    /// <exception cref="ArgumentOutOfRangeException">No such broker, an undefined API or error, a count below 1, or a negative delay.</exception>
    /// <exception cref="PlatformNotSupportedException">On Apple silicon, where librdkafka's variadic function cannot be called this way.</exception>
    /// <exception cref="ObjectDisposedException">The cluster was disposed.</exception>
    public void FailNextRequests(int brokerId, KafkaApi api, ErrorCode error, int count, TimeSpan delay)
    {
        CheckBroker(brokerId);
        CheckApi(api);
        CheckError(error, allowNoError: true);
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        int milliseconds = Milliseconds(delay, nameof(delay));
        ThrowIfVariadicUnsupported();

        for (int i = 0; i < count; i++)
        {
            ThrowIfFailed(
                Invoke(cluster => LibRdKafka.MockBrokerPushRequestErrorRtt(cluster, brokerId, (short)api, 1, (int)error, milliseconds)),
                "push a " + api + " error to broker " + brokerId);
        }
    }

    /// <summary>
    /// Makes the next <paramref name="count"/> Produce or Fetch requests for one partition fail with
    /// <paramref name="error"/> in that partition's answer; other partitions in the same request are served. With
    /// <see cref="ErrorCode.LeaderNotAvailable"/> this is a partition whose leader is unavailable for a while: clients
    /// retry, and once the failures are used up the partition serves again. Failures pushed earlier come first; the
    /// cluster-wide and per-broker failures of <c>FailNextRequests</c> are served before these.
    /// </summary>
    /// <param name="topic">A topic created by <see cref="CreateTopic"/> or by a client.</param>
    /// <param name="partition">The partition.</param>
    /// <param name="api"><see cref="KafkaApi.Produce"/> or <see cref="KafkaApi.Fetch"/>: the requests that carry per-partition errors.</param>
    /// <param name="error">A Kafka protocol error code, not <see cref="ErrorCode.NoError"/>.</param>
    /// <param name="count">How many requests fail, at least 1.</param>
    /// <exception cref="ArgumentException">No such topic or partition.</exception>
    /// <exception cref="ArgumentOutOfRangeException">The API is neither Produce nor Fetch, the error is not a defined value or is <see cref="ErrorCode.NoError"/>, or the count is less than 1.</exception>
    /// <exception cref="PlatformNotSupportedException">On Apple silicon, where librdkafka's variadic function cannot be called this way.</exception>
    /// <exception cref="ObjectDisposedException">The cluster was disposed.</exception>
    public void FailNextPartitionRequests(string topic, int partition, KafkaApi api, ErrorCode error, int count)
    {
        if (api is not (KafkaApi.Produce or KafkaApi.Fetch))
        {
            throw new ArgumentOutOfRangeException(nameof(api), api, "Only Produce and Fetch requests carry per-partition errors.");
        }

        CheckError(error, allowNoError: false);
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        CheckPartition(topic, partition);
        ThrowIfVariadicUnsupported();
        for (int i = 0; i < count; i++)
        {
            ThrowIfFailed(
                Invoke(cluster => LibRdKafka.MockPartitionPushRequestError(cluster, topic, partition, (short)api, 1, (int)error)),
                string.Create(CultureInfo.InvariantCulture, $"push a {api} error to {topic} [{partition}]"));
        }
    }

    /// <summary>Drops the cluster-wide failures <see cref="FailNextRequests(KafkaApi, ErrorCode, int)"/> pushed for <paramref name="api"/> and not yet served.</summary>
    /// <param name="api">The request type.</param>
    /// <exception cref="ArgumentOutOfRangeException">The API is not a defined value.</exception>
    /// <exception cref="ObjectDisposedException">The cluster was disposed.</exception>
    public void ClearRequestFailures(KafkaApi api)
    {
        CheckApi(api);
        Invoke(cluster =>
        {
            LibRdKafka.MockClearRequestErrors(cluster, (short)api);
            return 0;
        });
    }

    /// <summary>
    /// Makes metadata answers report <paramref name="error"/> for a topic (e.g. <see cref="ErrorCode.LeaderNotAvailable"/>),
    /// so clients treat it as unavailable; <see cref="ErrorCode.NoError"/> ends it.
    /// </summary>
    /// <param name="topic">A topic created by <see cref="CreateTopic"/> or by a client.</param>
    /// <param name="error">A Kafka protocol error code, or <see cref="ErrorCode.NoError"/>.</param>
    /// <exception cref="ArgumentException">No such topic.</exception>
    /// <exception cref="ArgumentOutOfRangeException">The error is not a defined value.</exception>
    /// <exception cref="ObjectDisposedException">The cluster was disposed.</exception>
    public void SetTopicError(string topic, ErrorCode error)
    {
        CheckError(error, allowNoError: true);
        CheckPartition(topic, 0);
        Invoke(cluster =>
        {
            LibRdKafka.MockTopicSetError(cluster, topic, (int)error);
            return 0;
        });
    }

    /// <summary>How many requests of <paramref name="api"/> all brokers received since the cluster started or <see cref="ResetRequestCounts"/>.</summary>
    /// <param name="api">The request type.</param>
    /// <returns>The count.</returns>
    /// <exception cref="ObjectDisposedException">The cluster was disposed.</exception>
    public int RequestCount(KafkaApi api) => CountRequests((short)api, brokerId: null);

    /// <summary>How many requests of <paramref name="api"/> one broker received since the cluster started or <see cref="ResetRequestCounts"/>.</summary>
    /// <param name="api">The request type.</param>
    /// <param name="brokerId">The broker, 1 to <see cref="BrokerCount"/>.</param>
    /// <returns>The count.</returns>
    /// <exception cref="ArgumentOutOfRangeException">No such broker.</exception>
    /// <exception cref="ObjectDisposedException">The cluster was disposed.</exception>
    public int RequestCount(KafkaApi api, int brokerId)
    {
        CheckBroker(brokerId);
        return CountRequests((short)api, brokerId);
    }

    /// <summary>Starts the request counts from zero.</summary>
    /// <exception cref="ObjectDisposedException">The cluster was disposed.</exception>
    public void ResetRequestCounts() => Invoke(cluster =>
    {
        LibRdKafka.MockClearRequests(cluster);
        return 0;
    });

    private int CountRequests(short apiKey, int? brokerId) => Invoke(cluster =>
    {
        IntPtr requests = LibRdKafka.MockGetRequests(cluster, out UIntPtr count);
        if (requests == IntPtr.Zero)
        {
            return 0;
        }

        try
        {
            int matching = 0;
            for (int i = 0; i < (int)count; i++)
            {
                IntPtr request = Marshal.ReadIntPtr(requests, i * IntPtr.Size);
                if (LibRdKafka.MockRequestApiKey(request) == apiKey
                    && (brokerId is null || LibRdKafka.MockRequestBrokerId(request) == brokerId))
                {
                    matching++;
                }
            }

            return matching;
        }
        finally
        {
            LibRdKafka.MockRequestDestroyArray(requests, count);
        }
    });

    private void CheckBroker(int brokerId)
    {
        if (brokerId < 1 || brokerId > BrokerCount)
        {
            throw new ArgumentOutOfRangeException(
                nameof(brokerId),
                brokerId,
                string.Create(CultureInfo.InvariantCulture, $"No broker {brokerId}: this cluster's brokers are 1 to {BrokerCount}."));
        }
    }

    private void CheckPartition(string topic, int partition)
    {
        ArgumentException.ThrowIfNullOrEmpty(topic);
        ObjectDisposedException.ThrowIf(_handle.IsClosed, this); // before asking a cluster that is gone
        int partitions = PartitionCount(topic);
        if (partitions == 0)
        {
            throw new ArgumentException($"No topic '{topic}' on this cluster: create it with CreateTopic first.", nameof(topic));
        }

        if (partition < 0 || partition >= partitions)
        {
            throw new ArgumentException(
                string.Create(CultureInfo.InvariantCulture, $"No partition {partition} in '{topic}', which has {partitions}."),
                nameof(partition));
        }
    }

    /// <summary>The topic's partition count, or 0 when it does not exist; asks the cluster for topics clients created.</summary>
    private int PartitionCount(string topic)
    {
        if (_topics.TryGetValue(topic, out int partitions))
        {
            return partitions;
        }

        // Not created here: a client may have created it on the fly. Ask without creating it.
        var config = new AdminClientConfig { BootstrapServers = BootstrapServers };
        config.Set("allow.auto.create.topics", "false");
        using IAdminClient admin = new AdminClientBuilder(config).Build();
        TopicMetadata? metadata = admin.GetMetadata(topic, TimeSpan.FromSeconds(10)).Topics.SingleOrDefault();
        return metadata is null || metadata.Error.IsError ? 0 : metadata.Partitions.Count;
    }

    private static void CheckApi(KafkaApi api)
    {
        if (!Enum.IsDefined(api))
        {
            throw new ArgumentOutOfRangeException(nameof(api), api, "Not a KafkaApi value.");
        }
    }

    private static void CheckError(ErrorCode error, bool allowNoError)
    {
        if (!Enum.IsDefined(error))
        {
            throw new ArgumentOutOfRangeException(nameof(error), error, "Not a Confluent.Kafka ErrorCode value.");
        }

        if (error == ErrorCode.NoError && !allowNoError)
        {
            throw new ArgumentOutOfRangeException(nameof(error), error, "NoError is not a failure: give the error the requests should fail with.");
        }
    }

    private static int Milliseconds(TimeSpan delay, string paramName)
    {
        if (delay < TimeSpan.Zero || delay.TotalMilliseconds > int.MaxValue)
        {
            throw new ArgumentOutOfRangeException(paramName, delay, "The delay must be between 0 and int.MaxValue milliseconds.");
        }

        return (int)delay.TotalMilliseconds;
    }

    private static void ThrowIfFailed(int error, string what)
    {
        if (error != 0)
        {
            throw new KafkaException(new Error((ErrorCode)error, "Cannot " + what + ": " + ErrorText(error)));
        }
    }

    private static void ThrowIfVariadicUnsupported()
    {
        if (OperatingSystem.IsMacOS() && RuntimeInformation.ProcessArchitecture == Architecture.Arm64)
        {
            throw new PlatformNotSupportedException("Apple's AArch64 calling convention passes variadic arguments on the stack; this fault is not available there.");
        }
    }
}
