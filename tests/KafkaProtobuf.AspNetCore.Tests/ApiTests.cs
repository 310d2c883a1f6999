using System;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Net.Http.Json;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Redrive;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Tests.Shared;
using Shop.V1;
using Xunit;

namespace KafkaProtobuf.AspNetCore.Tests;

/// <summary>The page's JSON API, as a script would use it: who may read and act, what it shows, how it pages.</summary>
[Collection(PageTests.Name)]
public sealed class ApiTests(PageApp app)
{
    [Fact]
    public async Task ASignedOutRequest_IsChallenged_AndASignedInOne_ReadsTheConsumers()
    {
        using HttpClient anonymous = app.HttpClientFor(null);
        Assert.Equal(HttpStatusCode.Unauthorized, (await anonymous.GetAsync("api/consumers")).StatusCode);
        Assert.Equal(HttpStatusCode.Unauthorized, (await anonymous.GetAsync(string.Empty)).StatusCode);

        using HttpClient viewer = app.HttpClientFor(PageApp.Viewer);
        JsonNode consumers = await GetJson(viewer, "api/consumers");
        JsonNode consumer = consumers["consumers"]!.AsArray().Single(c => (string?)c!["name"] == PageApp.ConsumerName)!;
        Assert.Equal("page-tests", (string?)consumer["groupId"]);
        Assert.Equal(PageApp.DeadLetterTopic, (string?)consumer["deadLetterTopic"]);
    }

    [Fact]
    public async Task EveryResponse_ForbidsInlineScriptAndFraming()
    {
        using HttpClient viewer = app.HttpClientFor(PageApp.Viewer);
        foreach (string path in new[] { string.Empty, "app.js", "app.css", "api/session", "api/consumers", "api/nothing-here" })
        {
            HttpResponseMessage response = await viewer.GetAsync(path);
            string csp = string.Join(" ", response.Headers.TryGetValues("Content-Security-Policy", out var values) ? values : []);
            if (response.StatusCode == HttpStatusCode.NotFound)
            {
                continue; // not the page's: the application's own 404
            }

            Assert.Contains("script-src 'self'", csp);
            Assert.DoesNotContain("unsafe-inline", csp);
            Assert.Contains("frame-ancestors 'none'", csp);
            Assert.Equal("DENY", response.Headers.GetValues("X-Frame-Options").Single());
            Assert.Equal("nosniff", response.Headers.GetValues("X-Content-Type-Options").Single());
        }

        string html = await viewer.GetStringAsync(string.Empty);
        Assert.DoesNotContain("<script>", html); // no inline script: the page's script is app.js
        Assert.DoesNotContain("http", html); // nothing from elsewhere (no CDN)
    }

    [Fact]
    public async Task TheBarePath_RedirectsToThePage()
    {
        using HttpClient viewer = app.HttpClientFor(PageApp.Viewer);
        viewer.BaseAddress = new Uri(app.Url);
        HttpResponseMessage response = await viewer.GetAsync("/kafka");
        Assert.Equal(HttpStatusCode.Redirect, response.StatusCode);
        Assert.Equal("/kafka/", response.Headers.Location!.OriginalString);
    }

    [Fact]
    public async Task AUserWithoutTheActPolicy_MayLook_ButEveryActIsForbidden()
    {
        using HttpClient viewer = app.HttpClientFor(PageApp.Viewer);
        JsonNode session = await GetJson(viewer, "api/session");
        Assert.False((bool)session["canAct"]!);
        Assert.Null(session["antiforgeryToken"]);

        foreach ((string path, object body) in Acts())
        {
            HttpResponseMessage response = await viewer.PostAsJsonAsync(path, body);
            Assert.Equal(HttpStatusCode.Forbidden, response.StatusCode);
        }
    }

    [Fact]
    public async Task AnOperatorsAct_WithoutTheAntiforgeryToken_IsRefused_AndWithIt_IsDone()
    {
        using HttpClient operatorClient = app.HttpClientFor(PageApp.Operator, "operator");
        var pause = new { topic = PageApp.Topic, partition = 2 };
        HttpResponseMessage withoutToken = await operatorClient.PostAsJsonAsync("api/consumers/orders/resume", pause);
        Assert.Equal(HttpStatusCode.BadRequest, withoutToken.StatusCode);
        Assert.Contains("antiforgery", await withoutToken.Content.ReadAsStringAsync(), StringComparison.OrdinalIgnoreCase);

        await SignForActs(operatorClient);
        HttpResponseMessage resumed = await PostUntilAssigned(operatorClient, "api/consumers/orders/resume", pause);
        Assert.Equal(HttpStatusCode.OK, resumed.StatusCode);
        Assert.Equal("Applied", (string?)(await resumed.Content.ReadFromJsonAsync<JsonNode>())!["result"]);
        Assert.Contains(app.Logs.Lines("KafkaProtobuf.AspNetCore.OperationsPage"), l => l.Contains(PageApp.Operator, StringComparison.Ordinal) && l.Contains("resume", StringComparison.Ordinal));
    }

    [Fact]
    public async Task PartitionActions_SayWhyNothingWasDone()
    {
        using HttpClient operatorClient = app.HttpClientFor(PageApp.Operator, "operator");
        await SignForActs(operatorClient);
        await PostUntilAssigned(operatorClient, "api/consumers/orders/resume", new { topic = PageApp.Topic, partition = 0 });

        Assert.Equal("UnknownConsumer", await ActResult(operatorClient, "api/consumers/nobody/pause", new { topic = PageApp.Topic, partition = 0 }, HttpStatusCode.NotFound));
        Assert.Equal("NotAssigned", await ActResult(operatorClient, "api/consumers/orders/pause", new { topic = PageApp.Topic, partition = 7 }, HttpStatusCode.Conflict));
        Assert.Equal("OffsetOutOfRange", await ActResult(operatorClient, "api/consumers/orders/rewind", new { topic = PageApp.Topic, partition = 0, offset = 1_000_000 }, HttpStatusCode.Conflict));
        HttpResponseMessage noOffset = await operatorClient.PostAsJsonAsync("api/consumers/orders/rewind", new { topic = PageApp.Topic, partition = 0 });
        Assert.Equal(HttpStatusCode.BadRequest, noOffset.StatusCode);
    }

    [Fact]
    public async Task APausedPartition_ShowsItsLagAndWhy_AndResumedItCatchesUp_AndRewoundItIsHandledAgain()
    {
        using HttpClient operatorClient = app.HttpClientFor(PageApp.Operator, "operator");
        await SignForActs(operatorClient);
        const int partition = 1;
        await PostUntilAssigned(operatorClient, "api/consumers/orders/pause", new { topic = PageApp.Topic, partition });
        string key = "paused-" + Guid.NewGuid().ToString("N");
        app.Produce(PageApp.Topic, partition, Enumerable.Range(0, 5).Select(i => Order(key, i)).ToArray());

        JsonNode row = await PartitionRowWhen(operatorClient, partition, r => ((long?)r["lag"] ?? -1) >= 5);
        Assert.Contains("Operator", row["pausedFor"]!.AsArray().Select(r => (string?)r));
        Assert.DoesNotContain(app.Handled, r => r.Message.Key == key);

        Assert.Equal("Applied", await ActResult(operatorClient, "api/consumers/orders/resume", new { topic = PageApp.Topic, partition }, HttpStatusCode.OK));
        await PageApp.Until(() => app.Handled.Count(r => r.Message.Key == key) == 5, "the paused records handled after the resume");
        row = await PartitionRowWhen(operatorClient, partition, r => (long?)r["lag"] == 0 && r["pausedFor"]!.AsArray().Count == 0);

        long first = app.Handled.First(r => r.Message.Key == key).Offset.Value;
        Assert.Equal("Applied", await ActResult(operatorClient, "api/consumers/orders/rewind", new { topic = PageApp.Topic, partition, offset = first }, HttpStatusCode.OK));
        await PageApp.Until(() => app.Handled.Count(r => r.Message.Key == key) == 10, "the rewound records handled again");
        Assert.Equal(
            Enumerable.Range(0, 5).Concat(Enumerable.Range(0, 5)),
            app.Handled.Where(r => r.Message.Key == key).Select(r => int.Parse(((OrderPlaced)r.Message.Value).Customer.Split('#')[1], System.Globalization.CultureInfo.InvariantCulture)));
    }

    [Fact]
    public async Task DeadLetters_PageNewestFirst_ByWindows_EachRecordOnce_ToTheTopicsStart()
    {
        const int records = 230;
        string key = "bulk-" + Guid.NewGuid().ToString("N");
        long before0 = app.ReadAll(PageApp.BulkTopic, 0).Length, before1 = app.ReadAll(PageApp.BulkTopic, 1).Length;
        for (int i = 0; i < records; i++)
        {
            app.Produce(PageApp.BulkTopic, i % 2, DeadLetterOf(key, i));
        }

        using HttpClient viewer = app.HttpClientFor(PageApp.Viewer);
        var seen = new List<(int Partition, long Offset)>();
        string? cursor = null;
        int pages = 0;
        do
        {
            JsonNode page = await GetJson(viewer, "api/dead-letters/" + PageApp.BulkTopic + (cursor is null ? string.Empty : "?before=" + Uri.EscapeDataString(cursor)));
            Assert.True((int)page["count"]! <= 50);
            var inPage = page["groups"]!.AsArray().SelectMany(g => g!["records"]!.AsArray()).Select(r => ((int)r!["partition"]!, (long)r["offset"]!)).ToList();
            foreach (int p in new[] { 0, 1 })
            {
                var offsets = inPage.Where(r => r.Item1 == p).Select(r => r.Item2).ToList();
                Assert.Equal(offsets.OrderByDescending(o => o), offsets.OrderByDescending(o => o).ToList()); // newest first within the partition
            }

            seen.AddRange(inPage);
            cursor = (string?)page["older"];
            pages++;
        }
        while (cursor is not null && pages < 100);

        Assert.Null(cursor);
        Assert.Equal(seen.Count, seen.Distinct().Count());
        Assert.Equal(before0 + before1 + records, seen.Count);
    }

    [Fact]
    public async Task ADeadLetter_IsGroupedByFailure_DecodedFromTheWritersSchema_WithItsRawBytesOnRequest()
    {
        string key = "decoded-" + Guid.NewGuid().ToString("N");
        var order = new OrderPlaced { OrderId = key, Customer = "ada", PlacedAtUnixMs = 1_700_000_000_000 };
        order.Lines.Add(new OrderPlaced.Types.Line { Sku = "sku-1", Quantity = 2, UnitPriceCents = 1999 });
        byte[] value = app.Serialize(order);
        app.Refused[key] = true;
        app.Produce(PageApp.Topic, new Message<string, byte[]> { Key = key, Value = value });

        using HttpClient viewer = app.HttpClientFor(PageApp.Viewer);
        JsonNode record = await DeadLetterWithKey(viewer, PageApp.DeadLetterTopic, key);
        JsonNode group = record.Parent!.Parent!;
        Assert.Equal(typeof(OrderRefusedException).FullName, (string?)group["code"]);
        Assert.Equal("handler", (string?)group["component"]);
        Assert.Equal("order decoded-# refused by the handler", (string?)group["pattern"]); // the kind of failure, its data set aside
        Assert.Equal("order " + key + " refused by the handler", (string?)group["example"]);
        Assert.Equal("json", (string?)record["value"]!["kind"]);
        Assert.Equal("shop.v1.OrderPlaced", (string?)record["value"]!["typeName"]);
        JsonNode decoded = JsonNode.Parse((string)record["value"]!["text"]!)!;
        Assert.Equal(key, (string?)decoded["orderId"]);
        Assert.Equal("1999", (string?)decoded["lines"]![0]!["unitPriceCents"]);
        Assert.Equal("text", (string?)record["key"]!["kind"]);
        Assert.Equal(key, (string?)record["key"]!["text"]);
        Assert.Equal(PageApp.Topic, (string?)record["sourceTopic"]);

        JsonNode raw = await GetJson(viewer, $"api/dead-letters/{PageApp.DeadLetterTopic}/{record["partition"]}/{record["offset"]}/value");
        Assert.Equal(value, Convert.FromBase64String((string)raw["base64"]!));
        Assert.Equal(value.Length, (int)raw["size"]!);
    }

    [Fact]
    public async Task HostileText_InARecord_ComesOutEscaped_AndAHugeRecordComesOutCutWithItsSize()
    {
        string key = "hostile-" + Guid.NewGuid().ToString("N");
        string hostile = "<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=1\">\u001b[2J\u202eevil\u2066";
        var headers = new Headers { { "note", Encoding.UTF8.GetBytes(hostile) } };
        headers.Add(DeadLetterHeaderNames.ErrorCode, Encoding.UTF8.GetBytes("Bad\u202eCode"));
        headers.Add(DeadLetterHeaderNames.ErrorMessage, Encoding.UTF8.GetBytes(hostile));
        byte[] value = app.Serialize(new OrderPlaced { OrderId = key, Customer = hostile });
        byte[] huge = app.Serialize(new OrderPlaced { OrderId = key + "-huge", Customer = new string('x', 200_000) });
        app.Produce(PageApp.BulkTopic, 0, new Message<string, byte[]> { Key = key, Value = value, Headers = headers });
        app.Produce(PageApp.BulkTopic, 0, new Message<string, byte[]> { Key = key + "-huge", Value = huge });

        using HttpClient viewer = app.HttpClientFor(PageApp.Viewer);
        JsonNode record = await DeadLetterWithKey(viewer, PageApp.BulkTopic, key);
        string json = (string)record["value"]!["text"]!;
        Assert.Contains("<script>window.__pwned=1</script>", JsonNode.Parse(json)!["customer"]!.GetValue<string>()); // shown as the text it is
        Assert.DoesNotContain('\u202e', json);
        Assert.DoesNotContain('\u2066', json);
        Assert.DoesNotContain('\u001b', json);
        Assert.Contains("\\u202e", json);
        string note = (string)record["headers"]!.AsArray().Single(h => (string?)h!["name"] == "note")!["value"]!;
        Assert.DoesNotContain('\u202e', note);
        Assert.DoesNotContain('\u001b', note);
        Assert.DoesNotContain('\u202e', (string)record.Parent!.Parent!["code"]!);

        JsonNode cut = await DeadLetterWithKey(viewer, PageApp.BulkTopic, key + "-huge");
        Assert.True((bool)cut["value"]!["cut"]!);
        Assert.Equal(huge.Length, (int)cut["value"]!["size"]!);
        Assert.True(((string)cut["value"]!["text"]!).Length <= 32_768);
    }

    [Fact]
    public async Task ARedrivePlan_RunsOnce_AndAnUnknownOneNever()
    {
        using HttpClient operatorClient = app.HttpClientFor(PageApp.Operator, "operator");
        await SignForActs(operatorClient);
        string key = "plan-" + Guid.NewGuid().ToString("N");
        var dryRun = new { topic = PageApp.BulkTopic, key };
        JsonNode plan = await (await operatorClient.PostAsJsonAsync("api/redrive/dry-run", dryRun)).Content.ReadFromJsonAsync<JsonNode>() ?? throw new InvalidOperationException();
        string planId = (string)plan["planId"]!;
        Assert.Equal(0, (long)plan["wouldWrite"]!);

        HttpResponseMessage first = await operatorClient.PostAsJsonAsync("api/redrive/runs", new { planId });
        Assert.Equal(HttpStatusCode.Accepted, first.StatusCode);
        HttpResponseMessage second = await operatorClient.PostAsJsonAsync("api/redrive/runs", new { planId });
        Assert.Equal(HttpStatusCode.Conflict, second.StatusCode);
        string refusal = await second.Content.ReadAsStringAsync();
        Assert.True(
            refusal.Contains(RedriveOutcomes.Describe(RedriveRefusal.Running), StringComparison.Ordinal) || refusal.Contains(RedriveOutcomes.Describe(RedriveRefusal.Completed), StringComparison.Ordinal),
            refusal); // the library's wording
        HttpResponseMessage unknown = await operatorClient.PostAsJsonAsync("api/redrive/runs", new { planId = "no-such-plan" });
        Assert.Equal(HttpStatusCode.Conflict, unknown.StatusCode);
        Assert.Contains(RedriveOutcomes.Describe(RedriveRefusal.NoPlan), await unknown.Content.ReadAsStringAsync(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task EveryRow_IsShownAsItsLastColumn_AndARedriveFromThePageWritesOnlyWhatIsBelieved(bool withKeys)
    {
        // The page reads with the flow's keys; the unsigned rows were written without (their writer had none).
        string topic = withKeys ? PageApp.SignedRowsTopic : PageApp.UnsignedRowsTopic, prefix = withKeys ? "page-signed-" : "page-unsigned-";
        var rows = ProvenanceRows.WriteAndDeadLetter(app.Cluster.BootstrapServers, app.Cluster.CreateTopic, prefix, topic, withKeys);
        using HttpClient operatorClient = app.HttpClientFor(PageApp.Operator, "operator");

        JsonNode page = await GetJson(operatorClient, "api/dead-letters/" + topic);
        JsonNode[] shown = [.. page["groups"]!.AsArray().SelectMany(g => g!["records"]!.AsArray()).Select(r => r!)];
        foreach (ProvenanceRows.Row row in rows)
        {
            JsonNode record = shown.Single(r => (int)r["partition"]! == row.Position.Partition.Value && (long)r["offset"]! == row.Position.Offset.Value);
            string source = (string)record["source"]!;
            Assert.True(row.Source is null ? source.StartsWith("not believed: ", StringComparison.Ordinal) : source == row.Source, row.Name + ": " + record.ToJsonString());
            Assert.Equal(row.Source is null ? "unverified" : withKeys ? "verified" : "unchecked", (string?)record["provenance"]);
            Assert.Equal(row.RedriveCount, (int)record["redriveCount"]!);
        }

        await SignForActs(operatorClient);
        JsonNode plan = (await (await operatorClient.PostAsJsonAsync("api/redrive/dry-run", new { topic })).Content.ReadFromJsonAsync<JsonNode>())!;
        Assert.Equal(rows.Count(r => r.Written), (long)plan["wouldWrite"]!);
        Assert.Equal(rows.Count(r => r.Source is null), (long)plan["skippedUnverified"]!);

        var before = ProvenanceRows.Counts(app.Cluster.BootstrapServers, ProvenanceRows.Topics(prefix));
        HttpResponseMessage started = await operatorClient.PostAsJsonAsync("api/redrive/runs", new { planId = (string)plan["planId"]! });
        Assert.Equal(HttpStatusCode.Accepted, started.StatusCode);
        JsonNode run = await RunEnded(operatorClient, (string)(await started.Content.ReadFromJsonAsync<JsonNode>())!["id"]!);
        var after = ProvenanceRows.Counts(app.Cluster.BootstrapServers, ProvenanceRows.Topics(prefix));

        Assert.Equal("completed", (string?)run["state"]);
        Assert.Equal(rows.Count(r => r.Written), (long)run["written"]!); // the plan's own counts
        Assert.Equal(rows.Count(r => !r.Written), (long)run["skipped"]!);
        Assert.Null(ProvenanceRows.Difference(before, after, prefix, rows, keptPartitions: false));
    }

    [Fact]
    public async Task ARecordWhoseOwnHeadersNameAnotherSource_IsShownAndRedrivenByItsRealSource()
    {
        app.Cluster.CreateTopic(ForgedSourceRecord.ForgedTopic, 1);
        string key = "forged-" + Guid.NewGuid().ToString("N");
        app.Refused[key] = true;
        app.Produce(PageApp.Topic, new Message<string, byte[]> { Key = key, Value = app.Serialize(new OrderPlaced { OrderId = key }), Headers = ForgedSourceRecord.Headers() });

        using HttpClient operatorClient = app.HttpClientFor(PageApp.Operator, "operator");
        JsonNode record = await DeadLetterWithKey(operatorClient, PageApp.DeadLetterTopic, key);
        Assert.Equal(PageApp.Topic, (string?)record["sourceTopic"]);
        int partition = (int)record["sourcePartition"]!;
        long offset = (long)record["sourceOffset"]!;
        Assert.NotEqual(7, partition);
        Assert.Equal(typeof(OrderRefusedException).FullName, (string?)record.Parent!.Parent!["code"]);

        await SignForActs(operatorClient);
        JsonNode plan = (await (await operatorClient.PostAsJsonAsync("api/redrive/dry-run", new { topic = PageApp.DeadLetterTopic, key })).Content.ReadFromJsonAsync<JsonNode>())!;
        Assert.Equal(1, (long)plan["wouldWrite"]!);
        JsonNode item = plan["items"]!.AsArray().Single()!;
        Assert.Equal(PageApp.Topic + " [" + partition + "] @" + offset, (string?)item["source"]);
        Assert.Equal("would write", (string?)item["outcome"]);

        app.Refused.TryRemove(key, out _); // the handler fixed
        string[] topics = [PageApp.Topic, PageApp.DeadLetterTopic, ForgedSourceRecord.ForgedTopic];
        var before = ForgedSourceRecord.Counts(app.Cluster.BootstrapServers, topics);
        HttpResponseMessage started = await operatorClient.PostAsJsonAsync("api/redrive/runs", new { planId = (string)plan["planId"]! });
        Assert.Equal(HttpStatusCode.Accepted, started.StatusCode);
        JsonNode run = await RunEnded(operatorClient, (string)(await started.Content.ReadFromJsonAsync<JsonNode>())!["id"]!);
        Assert.Equal("completed", (string?)run["state"]);
        Assert.Equal(1, (long)run["written"]!);
        await PageApp.Until(() => app.Handled.Any(r => r.Message.Key == key), "the redriven record handled");

        var after = ForgedSourceRecord.Counts(app.Cluster.BootstrapServers, topics);
        Assert.True(
            after[PageApp.Topic] == before[PageApp.Topic] + 1 && after[PageApp.DeadLetterTopic] == before[PageApp.DeadLetterTopic] && after[ForgedSourceRecord.ForgedTopic] == 0,
            "before: " + ForgedSourceRecord.Describe(before) + "; after: " + ForgedSourceRecord.Describe(after));
    }

    private Message<string, byte[]> Order(string key, int i) =>
        new() { Key = key, Value = app.Serialize(new OrderPlaced { OrderId = key, Customer = "customer#" + i }) };

    private static Message<string, byte[]> DeadLetterOf(string key, int i) => new()
    {
        Key = key,
        Value = Encoding.UTF8.GetBytes("not a frame " + i),
        Headers = new Headers
        {
            { DeadLetterHeaderNames.ErrorCode, Encoding.UTF8.GetBytes("UnknownMagicByte") },
            { DeadLetterHeaderNames.Component, Encoding.UTF8.GetBytes("value") },
            { DeadLetterHeaderNames.ErrorMessage, Encoding.UTF8.GetBytes("The first byte is not 0") },
            { DeadLetterHeaderNames.SourceTopic, Encoding.UTF8.GetBytes(PageApp.Topic) },
        },
    };

    private static IEnumerable<(string Path, object Body)> Acts() =>
    [
        ("api/consumers/orders/pause", new { topic = PageApp.Topic, partition = 0 }),
        ("api/consumers/orders/resume", new { topic = PageApp.Topic, partition = 0 }),
        ("api/consumers/orders/rewind", new { topic = PageApp.Topic, partition = 0, offset = 0 }),
        ("api/redrive/dry-run", new { topic = PageApp.DeadLetterTopic }),
        ("api/redrive/runs", new { planId = "x" }),
    ];

    internal static async Task SignForActs(HttpClient client)
    {
        JsonNode session = await GetJson(client, "api/session");
        Assert.True((bool)session["canAct"]!);
        client.DefaultRequestHeaders.Add((string)session["antiforgeryHeader"]!, (string)session["antiforgeryToken"]!);
    }

    internal static async Task<JsonNode> GetJson(HttpClient client, string path)
    {
        HttpResponseMessage response = await client.GetAsync(path);
        string text = await response.Content.ReadAsStringAsync();
        Assert.True(response.IsSuccessStatusCode, path + ": " + (int)response.StatusCode + " " + text);
        return JsonNode.Parse(text)!;
    }

    /// <summary>Posts until the consumer holds the partition (it joins its group as the application starts).</summary>
    private static async Task<HttpResponseMessage> PostUntilAssigned(HttpClient client, string path, object body)
    {
        HttpResponseMessage response = null!;
        await PageApp.Until(
            async () =>
            {
                response = await client.PostAsJsonAsync(path, body);
                return response.StatusCode != HttpStatusCode.Conflict;
            },
            "the consumer to hold its partitions");
        return response;
    }

    private static async Task<string> ActResult(HttpClient client, string path, object body, HttpStatusCode expected)
    {
        HttpResponseMessage response = await client.PostAsJsonAsync(path, body);
        string text = await response.Content.ReadAsStringAsync();
        Assert.True(expected == response.StatusCode, path + ": " + (int)response.StatusCode + " " + text);
        return (string)JsonNode.Parse(text)!["result"]!;
    }

    private static async Task<JsonNode> PartitionRowWhen(HttpClient client, int partition, Func<JsonNode, bool> condition)
    {
        JsonNode? row = null;
        JsonNode? last = null;
        await PageApp.Until(
            async () =>
            {
                JsonNode consumers = await GetJson(client, "api/consumers");
                last = consumers;
                row = consumers["consumers"]!.AsArray().Single(c => (string?)c!["name"] == PageApp.ConsumerName)!["partitions"]!.AsArray()
                    .SingleOrDefault(p => (string?)p!["topic"] == PageApp.Topic && (int)p["partition"]! == partition);
                return row is not null && condition(row);
            },
            () => "partition " + partition + "'s row to show what the test waits for; the consumers were: " + last?.ToJsonString());
        return row!;
    }

    /// <summary>The page's run of that id once it is no longer running.</summary>
    private static async Task<JsonNode> RunEnded(HttpClient client, string runId)
    {
        JsonNode? run = null;
        await PageApp.Until(
            async () =>
            {
                run = (await GetJson(client, "api/redrive/runs"))["runs"]!.AsArray().Single(r => (string?)r!["id"] == runId);
                return (string?)run!["state"] != "running";
            },
            "the redrive to end");
        return run!;
    }

    /// <summary>The dead letter with this key in the topic's newest window, once it is there.</summary>
    internal static async Task<JsonNode> DeadLetterWithKey(HttpClient client, string topic, string key)
    {
        JsonNode? found = null;
        await PageApp.Until(
            async () =>
            {
                JsonNode page = await GetJson(client, "api/dead-letters/" + topic);
                found = page["groups"]!.AsArray().SelectMany(g => g!["records"]!.AsArray()).FirstOrDefault(r => (string?)r!["key"]!["text"] == key);
                return found is not null;
            },
            "a dead letter with key " + key + " in " + topic);
        return found!;
    }
}
