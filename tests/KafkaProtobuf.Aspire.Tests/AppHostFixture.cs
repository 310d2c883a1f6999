using System;
using System.Net.Http;
using System.Threading.Tasks;
using Aspire.Hosting;
using Aspire.Hosting.Testing;
using Xunit;

namespace KafkaProtobuf.Aspire.Tests;

/// <summary>
/// The test AppHost, started once for the tests that share it: the embedded Kafka and in-process registry resources
/// in this process, the service as a process DCP starts. Every wait has a timeout.
/// </summary>
public sealed class AppHostFixture : IAsyncLifetime
{
    public static readonly TimeSpan Timeout = TimeSpan.FromSeconds(120);

    private DistributedApplication? _app;

    public DistributedApplication App => _app ?? throw new InvalidOperationException("The AppHost has not started.");

    public string BootstrapServers { get; private set; } = string.Empty;

    public string RegistryUrl { get; private set; } = string.Empty;

    public HttpClient Service { get; private set; } = new();

    public async Task InitializeAsync()
    {
        IDistributedApplicationTestingBuilder builder = await DistributedApplicationTestingBuilder
            .CreateAsync<Projects.KafkaProtobuf_Aspire_Tests_AppHost>(["KafkaProtobuf:ProvenanceKeys=" + KafkaProtobuf.Tests.Shared.ProvenanceRows.KeysText]).WaitAsync(Timeout);
        _app = await builder.BuildAsync().WaitAsync(Timeout);
        await _app.StartAsync().WaitAsync(Timeout);
        BootstrapServers = await _app.GetConnectionStringAsync("kafka").AsTask().WaitAsync(Timeout) ?? string.Empty;
        RegistryUrl = await _app.GetConnectionStringAsync("registry").AsTask().WaitAsync(Timeout) ?? string.Empty;
        await _app.ResourceNotifications.WaitForResourceHealthyAsync("service").WaitAsync(Timeout);
        Service = _app.CreateHttpClient("service");
        Service.Timeout = TimeSpan.FromSeconds(60);
    }

    public async Task DisposeAsync()
    {
        Service.Dispose();
        if (_app is not null)
        {
            await _app.StopAsync().WaitAsync(Timeout);
            await _app.DisposeAsync().AsTask().WaitAsync(Timeout);
        }
    }
}
