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
