using System;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Aspire.Hosting;
using Aspire.Hosting.ApplicationModel;
using Aspire.Hosting.Testing;
using Microsoft.Extensions.DependencyInjection;
using Xunit;

namespace KafkaProtobuf.Aspire.Tests;

/// <summary>The sample AppHost (samples/KafkaProtobuf.AspireSample.AppHost), started as the README runs it.</summary>
public sealed class SampleAppHostTests
{
    [Fact]
    public async Task TheSample_StartsHealthy_AndItsServiceReadsWhatItWrites()
    {
        IDistributedApplicationTestingBuilder builder = await DistributedApplicationTestingBuilder
            .CreateAsync<Projects.KafkaProtobuf_AspireSample_AppHost>().WaitAsync(AppHostFixture.Timeout);
        await using DistributedApplication app = await builder.BuildAsync().WaitAsync(AppHostFixture.Timeout);
        await app.StartAsync().WaitAsync(AppHostFixture.Timeout);
        await app.ResourceNotifications.WaitForResourceHealthyAsync("shop").WaitAsync(AppHostFixture.Timeout);

        // The service's consumer group commits offsets on shop.orders once it has read what its producer wrote.
        ResourceCommandService commands = app.Services.GetRequiredService<ResourceCommandService>();
        var group = new InteractionInputCollection([new InteractionInput { Name = "group", InputType = InputType.Text, Value = "shop" }]);
        using var timeout = new CancellationTokenSource(AppHostFixture.Timeout);
        ExecuteCommandResult? lag = null;
        while (!(lag is { Success: true } && lag.Data!.Value.Split('\n').Any(line => line.StartsWith("shop.orders\t", StringComparison.Ordinal) && line.Split('\t')[2] != "-")))
        {
            Assert.False(timeout.IsCancellationRequested, "The sample's group never committed on shop.orders; the last answer: " + lag?.Message + "\n" + lag?.Data?.Value);
            await Task.Delay(500, CancellationToken.None);
            lag = await commands.ExecuteCommandAsync("kafka", "kafkaprotobuf-group-lag", group, CancellationToken.None).WaitAsync(AppHostFixture.Timeout);
        }

        await app.StopAsync().WaitAsync(AppHostFixture.Timeout);
    }
}
