using System;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Net.Http.Json;
using System.Text.Json.Nodes;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.AspNetCore.Security;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Xunit;

namespace KafkaProtobuf.AspNetCore.Tests;

/// <summary>How the page is mapped: never without a policy by accident, loopback-only when asked, read-only without an act policy.</summary>
[Collection(PageTests.Name)]
public sealed class MappingTests(PageApp app)
{
    [Fact]
    public void WithoutAPolicy_ThePageIsNotMapped_AndTheErrorSaysWhatToSet()
    {
        var thrown = Assert.Throws<InvalidOperationException>(() => app.Build(_ => { }, withConsumer: false));
        Assert.Contains("ReadPolicy", thrown.Message, StringComparison.Ordinal);
        Assert.Contains("AllowAnonymousOnLoopback", thrown.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(0, 32_768, 1, " ")]
    [InlineData(501, 32_768, 1, "dlq")]
    [InlineData(50, 100, 1, "dlq")]
    [InlineData(50, 32_768, 0, "dlq")]
    [InlineData(50, 32_768, 1, "")]
    public void AnOptionOutOfRange_IsRefusedAtStartUp(int recordsPerPage, int maxShownChars, int maxRawBytes, string topic)
    {
        Assert.Throws<InvalidOperationException>(() => app.Build(
            page =>
            {
                page.ReadPolicy = "kafka-read";
                page.RecordsPerPage = recordsPerPage;
                page.MaxShownChars = maxShownChars;
                page.MaxRawBytes = maxRawBytes;
                page.DeadLetterTopics.Add(topic);
            },
            withConsumer: false));
    }

    [Fact]
    public void FramingThatCannotBeRead_IsRefusedAtStartUp()
    {
        var thrown = Assert.Throws<InvalidOperationException>(() => app.Build(
            page =>
            {
                page.ReadPolicy = "kafka-read";
                page.Framing.MessageIndexPresence = MessageIndexPresence.Absent;
                page.Framing.MessageIndexEncoding = MessageIndexEncoding.LegacyUnsigned; // no indexes have no encoding
            },
            withConsumer: false));
        Assert.Contains("Framing", thrown.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void BadArguments_AreArgumentExceptions()
    {
        Assert.Throws<ArgumentNullException>(() => ((IEndpointRouteBuilder)null!).MapKafkaProtobufOperations("/kafka", _ => { }));
        WebApplication bare = WebApplication.CreateBuilder().Build();
        Assert.Throws<ArgumentException>(() => bare.MapKafkaProtobufOperations(" ", _ => { }));
        Assert.Throws<ArgumentNullException>(() => bare.MapKafkaProtobufOperations("/kafka", null!));
        Assert.Throws<ArgumentException>(() => KafkaProtobuf.Decoding.DescriptorSetFile.Read(string.Empty));
        Assert.ThrowsAny<System.IO.IOException>(() => KafkaProtobuf.Decoding.DescriptorSetFile.Read("/no/such/set.pb"));
    }

    [Fact]
    public void ActingWithoutAntiforgery_IsRefusedAtStartUp()
    {
        WebApplication bare = WebApplication.CreateBuilder().Build(); // no AddAntiforgery
        var thrown = Assert.Throws<InvalidOperationException>(() => bare.MapKafkaProtobufOperations("/kafka", page => page.AllowAnonymousOnLoopback = true));
        Assert.Contains("AddAntiforgery", thrown.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task LoopbackOnly_ServesThisMachineAnonymously_AndRefusesOtherAddresses()
    {
        await using WebApplication local = app.Build(
            page =>
            {
                page.AllowAnonymousOnLoopback = true;
                page.Kafka = new ClientConfig { BootstrapServers = app.Cluster.BootstrapServers };
            },
            withConsumer: false);
        await local.StartAsync().WaitAsync(PageApp.Timeout);
        using var http = new HttpClient { BaseAddress = new Uri(local.Urls.Single() + "/kafka/"), Timeout = PageApp.Timeout };
        JsonNode session = (await http.GetFromJsonAsync<JsonNode>("api/session"))!;
        Assert.True((bool)session["canAct"]!);
        Assert.StartsWith("anonymous on 127.0.0.1", (string)session["user"]!, StringComparison.Ordinal);
        Assert.Equal(HttpStatusCode.OK, (await http.GetAsync(string.Empty)).StatusCode);
        await local.StopAsync().WaitAsync(PageApp.Timeout);

        var access = new Access(new KafkaProtobufOperationsOptions { AllowAnonymousOnLoopback = true }, authorization: null);
        var remote = new DefaultHttpContext();
        remote.Request.Host = new HostString("localhost");
        remote.Connection.RemoteIpAddress = IPAddress.Parse("10.1.2.3");
        Assert.True(access.Refused(remote));
        remote.Connection.RemoteIpAddress = IPAddress.IPv6Loopback;
        Assert.False(access.Refused(remote));
        Assert.False(new Access(new KafkaProtobufOperationsOptions { ReadPolicy = "kafka-read", AllowAnonymousOnLoopback = true }, null).Refused(new DefaultHttpContext()));
    }

    [Fact]
    public async Task LoopbackOnly_RefusesEveryReadAndAct_ThatNamesAForeignHost_AndServesLocalhostAndTheAllowedNames()
    {
        await using WebApplication local = app.Build(
            page =>
            {
                page.AllowAnonymousOnLoopback = true;
                page.LoopbackHostNames.Add("devbox.local");
                page.Kafka = new ClientConfig { BootstrapServers = app.Cluster.BootstrapServers };
                page.DeadLetterTopics.Add(PageApp.DeadLetterTopic);
            },
            withConsumer: false);
        await local.StartAsync().WaitAsync(PageApp.Timeout);
        string url = local.Urls.Single();
        int port = new Uri(url).Port;
        using var http = new HttpClient { Timeout = PageApp.Timeout };
        string[] reads = [string.Empty, "app.js", "app.css", "api/session", "api/consumers", "api/redrive/runs", "api/dead-letters/" + PageApp.DeadLetterTopic, "api/dead-letters/" + PageApp.DeadLetterTopic + "/0/0/value"];
        (string Path, string Body)[] acts =
        [
            ("api/redrive/dry-run", "{\"topic\":\"" + PageApp.DeadLetterTopic + "\"}"),
            ("api/redrive/runs", "{\"planId\":\"x\"}"),
            ("api/consumers/orders/pause", "{\"topic\":\"orders\",\"partition\":0}"),
            ("api/consumers/orders/resume", "{\"topic\":\"orders\",\"partition\":0}"),
            ("api/consumers/orders/rewind", "{\"topic\":\"orders\",\"partition\":0,\"offset\":0}"),
        ];

        async Task<HttpStatusCode> Send(HttpMethod method, string path, string? body, string host)
        {
            using var request = new HttpRequestMessage(method, url + "/kafka/" + path);
            request.Headers.Host = host;
            if (body is not null)
            {
                request.Content = new StringContent(body, System.Text.Encoding.UTF8, "application/json");
            }

            using HttpResponseMessage response = await http.SendAsync(request);
            return response.StatusCode;
        }

        foreach (string host in new[] { "attacker.example", "attacker.example:" + port, "localhost.attacker.example:" + port, "127.0.0.1.attacker.example" })
        {
            foreach (string path in reads)
            {
                Assert.True(await Send(HttpMethod.Get, path, null, host) == HttpStatusCode.Forbidden, "GET " + path + " with Host " + host);
            }

            foreach ((string path, string body) in acts)
            {
                Assert.True(await Send(HttpMethod.Post, path, body, host) == HttpStatusCode.Forbidden, "POST " + path + " with Host " + host);
            }
        }

        foreach (string host in new[] { "localhost:" + port, "LOCALHOST:" + port, "127.0.0.1:" + port, "[::1]:" + port, "devbox.local:" + port })
        {
            Assert.True(await Send(HttpMethod.Get, "api/session", null, host) == HttpStatusCode.OK, "GET api/session with Host " + host);
        }

        await local.StopAsync().WaitAsync(PageApp.Timeout);

        Assert.Throws<InvalidOperationException>(() => app.Build(page => { page.AllowAnonymousOnLoopback = true; page.LoopbackHostNames.Add("devbox.local:8080"); }, withConsumer: false));
        Assert.Throws<InvalidOperationException>(() => app.Build(page => { page.AllowAnonymousOnLoopback = true; page.LoopbackHostNames.Add("*"); }, withConsumer: false));
    }

    [Theory]
    [InlineData("attacker.example", true)]
    [InlineData("localhost.attacker.example", true)]
    [InlineData("", true)]
    [InlineData("localhost", false)]
    [InlineData("localhost:5080", false)]
    [InlineData("127.0.0.2:80", false)]
    [InlineData("[::1]:5080", false)]
    [InlineData("10.0.0.1:5080", true)]
    public void LoopbackOnly_JudgesTheHostByNameOrAddress(string host, bool refused)
    {
        var access = new Access(new KafkaProtobufOperationsOptions { AllowAnonymousOnLoopback = true }, authorization: null);
        var context = new DefaultHttpContext();
        context.Connection.RemoteIpAddress = IPAddress.Loopback;
        context.Request.Host = host.Length == 0 ? default : new HostString(host);
        Assert.Equal(refused, access.Refused(context));
    }

    [Fact]
    public async Task NoResponse_CarriesTheKafkaSettingsOrTheRegistrysAddress()
    {
        const string password = "hunter2-sasl-secret";
        await using WebApplication secretive = app.Build(
            page =>
            {
                page.ReadPolicy = "kafka-read";
                page.ActPolicy = "kafka-act";
                page.Kafka = new ClientConfig { BootstrapServers = app.Cluster.BootstrapServers, SaslUsername = "svc-orders", SaslPassword = password };
                page.WriterSchemaSource = app.Client;
                page.DeadLetterTopics.Add(PageApp.DeadLetterTopic);
            },
            withConsumer: false);
        await secretive.StartAsync().WaitAsync(PageApp.Timeout);
        using var http = new HttpClient { BaseAddress = new Uri(secretive.Urls.Single() + "/kafka/"), Timeout = PageApp.Timeout };
        http.DefaultRequestHeaders.Add(HeaderAuthentication.UserHeader, PageApp.Operator);
        http.DefaultRequestHeaders.Add(HeaderAuthentication.RolesHeader, "operator");
        foreach (string path in new[] { "api/session", "api/consumers", "api/redrive/runs", "api/dead-letters/" + PageApp.DeadLetterTopic, "api/dead-letters/no-such-topic", string.Empty, "app.js" })
        {
            string body = await (await http.GetAsync(path)).Content.ReadAsStringAsync();
            Assert.DoesNotContain(password, body, StringComparison.Ordinal);
            Assert.DoesNotContain("svc-orders", body, StringComparison.Ordinal);
            Assert.DoesNotContain(app.Cluster.BootstrapServers.Split(',')[0], body, StringComparison.Ordinal);
            Assert.DoesNotContain(app.Registry.Url, body, StringComparison.Ordinal);
        }

        await secretive.StopAsync().WaitAsync(PageApp.Timeout);
    }

    [Fact]
    public async Task WithAReadPolicyAndNoActPolicy_ThePageIsReadOnly_ItsActsNotMapped()
    {
        await using WebApplication readOnly = app.Build(page => page.ReadPolicy = "kafka-read", withConsumer: false);
        await readOnly.StartAsync().WaitAsync(PageApp.Timeout);
        using var http = new HttpClient { BaseAddress = new Uri(readOnly.Urls.Single() + "/kafka/"), Timeout = PageApp.Timeout };
        http.DefaultRequestHeaders.Add(HeaderAuthentication.UserHeader, PageApp.Operator);
        http.DefaultRequestHeaders.Add(HeaderAuthentication.RolesHeader, "operator");
        JsonNode session = (await http.GetFromJsonAsync<JsonNode>("api/session"))!;
        Assert.False((bool)session["canAct"]!);
        Assert.False((bool)session["deadLettersReadable"]!);
        HttpResponseMessage pause = await http.PostAsJsonAsync("api/consumers/orders/pause", new { topic = "orders", partition = 0 });
        Assert.True(pause.StatusCode is HttpStatusCode.NotFound or HttpStatusCode.MethodNotAllowed, pause.StatusCode.ToString());
        await readOnly.StopAsync().WaitAsync(PageApp.Timeout);
    }
}
