using System;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using KafkaProtobuf.Testing;
using KafkaProtobuf.WolverineSample;
using KafkaProtobuf.Wolverine.Tests.Support;
using Xunit;

namespace KafkaProtobuf.Wolverine.Tests;

/// <summary>The sample's service does what docs/wolverine.md says it does.</summary>
public sealed class SampleTests
{
    [Fact]
    public async Task The_sample_handles_what_it_publishes_and_dead_letters_the_foreign_record()
    {
        using EmbeddedKafkaCluster cluster = EmbeddedKafkaCluster.Start();
        using InProcessSchemaRegistry registry = InProcessSchemaRegistry.Start();
        cluster.CreateTopic(OrdersService.Topic, 1);
        cluster.CreateTopic(OrdersService.DeadLetterTopic, 1);
        var log = new StringWriter();
        using var timeout = new CancellationTokenSource(WolverineApp.Wait);

        OrdersService.Outcome outcome = await OrdersService.RunAsync(cluster.BootstrapServers, registry.Url, TextWriter.Synchronized(log), timeout.Token);

        Assert.Equal(new OrdersService.Outcome(4, 1), outcome);
        Assert.Matches(@"dead letter: UnknownMagicByte from orders \[0\] @[0-4], 21 bytes as written", log.ToString());
        Assert.Contains("cancelled order-2: changed mind", log.ToString(), StringComparison.Ordinal);
    }
}
