using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;
using KafkaProtobuf.Testing;
using Xunit;

namespace KafkaProtobuf.Tests.EndToEnd;

/// <summary>Threads are process-wide, so these tests run alone, after the parallel ones.</summary>
[CollectionDefinition(nameof(EmbeddedKafkaClusterLifetimeTests), DisableParallelization = true)]
public sealed class EmbeddedKafkaClusterLifetimeRunsAlone;

[Collection(nameof(EmbeddedKafkaClusterLifetimeTests))]
public class EmbeddedKafkaClusterLifetimeTests
{
    [Fact]
    public void StartAndDisposeManyTimes_LeavesNoLibrdkafkaThreadBehind()
    {
        // Off Linux every thread is counted, so the runtime's pool may add a few.
        int slack = RuntimeInformation.IsOSPlatform(OSPlatform.Linux) ? 0 : 10;
        int before = LibrdkafkaThreads();
        for (int i = 0; i < 20; i++)
        {
            using var cluster = EmbeddedKafkaCluster.Start(3);
            cluster.CreateTopic("t", 3);
            Assert.True(LibrdkafkaThreads() > before, "a running cluster's threads are counted"); // so the check below can fail
        }

        // Dispose joins librdkafka's threads; the wait only absorbs a thread that is still unwinding.
        int after = LibrdkafkaThreads();
        for (var clock = Stopwatch.StartNew(); after > before + slack && clock.Elapsed < TimeSpan.FromSeconds(10); after = LibrdkafkaThreads())
        {
            Thread.Sleep(50);
        }

        Assert.True(after <= before + slack, $"{before} librdkafka threads before, {after} after 20 clusters");
    }

    /// <summary>
    /// librdkafka names its threads <c>rdk:main</c>, <c>rdk:broker…</c>, <c>rdk:mock</c>; counting only those keeps the
    /// runtime's own thread pool out of the count.
    /// </summary>
    private static int LibrdkafkaThreads()
    {
        if (!RuntimeInformation.IsOSPlatform(OSPlatform.Linux))
        {
            return Process.GetCurrentProcess().Threads.Count;
        }

        return Directory.GetDirectories("/proc/self/task").Count(task =>
        {
            try
            {
                return File.ReadAllText(Path.Combine(task, "comm")).StartsWith("rdk:", StringComparison.Ordinal);
            }
            catch (IOException)
            {
                return false; // the thread ended while we listed it
            }
        });
    }
}
