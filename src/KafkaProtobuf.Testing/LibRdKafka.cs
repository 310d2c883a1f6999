using System;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Runtime.InteropServices;

namespace KafkaProtobuf.Testing;

/// <summary>
/// The few librdkafka functions the mock cluster needs, bound to the very library Confluent.Kafka loaded: on Linux it
/// falls back from <c>librdkafka.so</c> (which needs libsasl2) to a bundled build such as
/// <c>centos8-librdkafka.so</c>, and a second, different copy in the process would not share its state.
/// </summary>
internal static partial class LibRdKafka
{
    private const string Library = "librdkafka";

    internal const int ProducerType = 0;

    static LibRdKafka() => NativeLibrary.SetDllImportResolver(typeof(LibRdKafka).Assembly, Resolve);

    [LibraryImport(Library, EntryPoint = "rd_kafka_conf_new")]
    internal static partial IntPtr ConfNew();

    [LibraryImport(Library, EntryPoint = "rd_kafka_conf_set", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int ConfSet(IntPtr conf, string name, string value, byte[] errstr, UIntPtr errstrSize);

    [LibraryImport(Library, EntryPoint = "rd_kafka_conf_destroy")]
    internal static partial void ConfDestroy(IntPtr conf);

    [LibraryImport(Library, EntryPoint = "rd_kafka_new")]
    internal static partial IntPtr New(int type, IntPtr conf, byte[] errstr, UIntPtr errstrSize);

    [LibraryImport(Library, EntryPoint = "rd_kafka_destroy")]
    internal static partial void Destroy(IntPtr rk);

    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_cluster_new")]
    internal static partial IntPtr MockClusterNew(IntPtr rk, int brokerCount);

    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_cluster_destroy")]
    internal static partial void MockClusterDestroy(IntPtr mockCluster);

    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_cluster_bootstraps")]
    internal static partial IntPtr MockClusterBootstraps(IntPtr mockCluster);

    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_topic_create", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int MockTopicCreate(IntPtr mockCluster, string topic, int partitionCount, int replicationFactor);

    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_broker_set_down")]
    internal static partial int MockBrokerSetDown(IntPtr mockCluster, int brokerId);

    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_broker_set_up")]
    internal static partial int MockBrokerSetUp(IntPtr mockCluster, int brokerId);

    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_broker_set_rtt")]
    internal static partial int MockBrokerSetRtt(IntPtr mockCluster, int brokerId, int rttMs);

    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_partition_set_leader", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int MockPartitionSetLeader(IntPtr mockCluster, string topic, int partition, int brokerId);

    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_coordinator_set", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int MockCoordinatorSet(IntPtr mockCluster, string keyType, string key, int brokerId);

    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_push_request_errors_array")]
    internal static partial void MockPushRequestErrorsArray(IntPtr mockCluster, short apiKey, UIntPtr count, int[] errors);

    /// <summary>
    /// One (error, delay) pair of the variadic <c>rd_kafka_mock_broker_push_request_error_rtts</c>. With a count of 1 the
    /// two variadic ints travel in the argument registers exactly as fixed ones do on the System V x64, AArch64 (but for
    /// Apple's) and Windows x64 calling conventions; callers check the platform.
    /// </summary>
    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_broker_push_request_error_rtts")]
    internal static partial int MockBrokerPushRequestErrorRtt(IntPtr mockCluster, int brokerId, short apiKey, UIntPtr count, int error, int rttMs);

    // Variadic in C (count, then that many int errors); declared with one error and called with count 1.
    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_partition_push_request_errors", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int MockPartitionPushRequestError(IntPtr mockCluster, string topic, int partition, short apiKey, UIntPtr count, int error);

    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_clear_request_errors")]
    internal static partial void MockClearRequestErrors(IntPtr mockCluster, short apiKey);

    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_topic_set_error", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial void MockTopicSetError(IntPtr mockCluster, string topic, int error);

    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_start_request_tracking")]
    internal static partial void MockStartRequestTracking(IntPtr mockCluster);

    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_get_requests")]
    internal static partial IntPtr MockGetRequests(IntPtr mockCluster, out UIntPtr count);

    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_request_api_key")]
    internal static partial short MockRequestApiKey(IntPtr request);

    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_request_id")]
    internal static partial int MockRequestBrokerId(IntPtr request);

    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_request_destroy_array")]
    internal static partial void MockRequestDestroyArray(IntPtr requests, UIntPtr count);

    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_clear_requests")]
    internal static partial void MockClearRequests(IntPtr mockCluster);

    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_group_initial_rebalance_delay_ms")]
    internal static partial void MockGroupInitialRebalanceDelay(IntPtr mockCluster, int delayMs);

    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_set_group_consumer_session_timeout_ms")]
    internal static partial void MockGroupConsumerSessionTimeout(IntPtr mockCluster, int sessionTimeoutMs);

    [LibraryImport(Library, EntryPoint = "rd_kafka_mock_set_group_consumer_heartbeat_interval_ms")]
    internal static partial void MockGroupConsumerHeartbeatInterval(IntPtr mockCluster, int heartbeatIntervalMs);

    [LibraryImport(Library, EntryPoint = "rd_kafka_err2str")]
    internal static partial IntPtr ErrorToString(int error);

    internal static string ErrorText(byte[] errstr)
    {
        int end = Array.IndexOf(errstr, (byte)0);
        return System.Text.Encoding.UTF8.GetString(errstr, 0, end < 0 ? errstr.Length : end);
    }

    private static IntPtr Resolve(string name, Assembly assembly, DllImportSearchPath? searchPath)
    {
        if (name != Library)
        {
            return IntPtr.Zero;
        }

        // Make Confluent.Kafka load librdkafka its own way first, then bind to that same file.
        _ = Confluent.Kafka.Library.Version;

        if (OperatingSystem.IsLinux())
        {
            string? loaded = File.ReadLines("/proc/self/maps")
                .Select(line => line.Split(' ', StringSplitOptions.RemoveEmptyEntries))
                .Where(fields => fields.Length >= 6)
                .Select(fields => string.Join(' ', fields.Skip(5)))
                .FirstOrDefault(path => Path.GetFileName(path).Contains("rdkafka", StringComparison.Ordinal) && path.Contains(".so", StringComparison.Ordinal));
            if (loaded is not null)
            {
                return NativeLibrary.Load(loaded);
            }
        }

        // Windows and macOS have one build, resolved by name exactly as Confluent.Kafka resolved it.
        return IntPtr.Zero;
    }
}
