using System;
using System.Linq;
using System.Reflection;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Shared;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting;

/// <summary>
/// What a service's process tells its orchestrator (systemd's Restart=on-failure, Docker's on-failure, a Kubernetes
/// Job): a service written as the docs show it (<c>builder.Build().Run()</c>) exits non-zero when its consumer fails,
/// and zero when it stops cleanly. The service runs as a process of its own against the test's embedded cluster; each
/// run ends by itself (the wait for it has a deadline, and a process still running then is killed).
/// </summary>
public sealed class HostedConsumerProcessTests : IDisposable
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(90);

    private static readonly string Service = typeof(HostedConsumerProcessTests).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>()
        .Single(a => a.Key == "ConsumerProcess").Value!;

    private readonly EmbeddedKafkaCluster _cluster = EmbeddedKafkaCluster.Start(1);

    public HostedConsumerProcessTests() => _cluster.SetGroupInitialRebalanceDelay(TimeSpan.Zero);

    public void Dispose() => _cluster.Dispose();

    [Fact]
    public void AConsumerThatFails_MakesTheProcessExitNonZero()
    {
        Produce("failing", Encoding.UTF8.GetBytes("first"), [0xFF, 0xFE, 0xFD]); // the second cannot be deserialized, and there is no dead-letter topic

        (int exitCode, string output) = Run("failing");

        Assert.Equal(1, exitCode);
        Assert.Contains("handled first", output, StringComparison.Ordinal);
        Assert.Contains("stopped on a failure: failing [0] @1 cannot be deserialized and there is no dead-letter topic", output, StringComparison.Ordinal);
    }

    [Fact]
    public void AServiceThatStopsCleanly_ExitsZero()
    {
        Produce("clean", Encoding.UTF8.GetBytes("first"), Encoding.UTF8.GetBytes("stop"));

        (int exitCode, string output) = Run("clean");

        Assert.Contains("handled stop", output, StringComparison.Ordinal);
        Assert.Equal(0, exitCode);
    }

    private void Produce(string topic, params byte[][] values)
    {
        _cluster.CreateTopic(topic, 1);
        using IProducer<Null, byte[]> producer = new ProducerBuilder<Null, byte[]>(_cluster.CreateProducerConfig()).Build();
        foreach (byte[] value in values)
        {
            producer.Produce(topic, new Message<Null, byte[]> { Value = value });
        }

        Assert.Equal(0, producer.Flush(Deadline));
    }

    private (int ExitCode, string Output) Run(string topic) =>
        DotNet.Run("dotnet", "exec \"" + Service + "\" " + _cluster.BootstrapServers + " " + topic + " group-" + Guid.NewGuid().ToString("N"), AppContext.BaseDirectory, Deadline);
}
