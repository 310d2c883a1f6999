using System;
using System.IO;
using System.Linq;
using System.Net.Http;
using System.Net.Http.Json;
using System.Text;
using System.Threading.Tasks;
using Confluent.Kafka;
using Microsoft.Playwright;
using Shop.V1;
using Xunit;

namespace KafkaProtobuf.AspNetCore.Tests;

/// <summary>
/// The page in a real browser (headless chromium): what an operator sees and clicks. Screenshots go beside the test
/// assembly, or to KAFKAPROTOBUF_SCREENSHOTS when set (docs/ keeps the ones the docs show). Skipped without chromium
/// (which CI refuses: .ci/run installs it).
/// </summary>
[Collection(PageTests.Name)]
public sealed class BrowserTests(PageApp app)
{
    [SkippableFact]
    public async Task ThePage_ListsTheConsumerAndItsPartitions_WithThePausedOnesLag()
    {
        using HttpClient operatorClient = app.HttpClientFor(PageApp.Operator, "operator");
        await ApiTests.SignForActs(operatorClient);
        await PostUntilApplied(operatorClient, "api/consumers/orders/pause", new { topic = PageApp.Topic, partition = 0 });
        string key = "lag-" + Guid.NewGuid().ToString("N");
        app.Produce(PageApp.Topic, 0, Enumerable.Range(0, 7).Select(i => new Message<string, byte[]> { Key = key, Value = app.Serialize(new OrderPlaced { OrderId = key + i }) }).ToArray());

        IPage page = await app.PageFor(PageApp.Operator, "operator");
        await page.GotoAsync(app.Url + "/kafka/");
        ILocator consumer = page.Locator("[data-consumer='orders']");
        await Assertions.Expect(consumer.Locator("h3")).ToContainTextAsync("Running");
        await Assertions.Expect(consumer.Locator("tbody tr")).ToHaveCountAsync(3);
        ILocator paused = consumer.Locator("tr[data-partition='orders/0']");
        // refreshed without a reload until the paused partition shows its lag
        await Assertions.Expect(paused.Locator("td.lag")).ToHaveTextAsync(new System.Text.RegularExpressions.Regex("^[1-9][0-9,]*$")); // a number, not 0 nor "—" (unknown)
        await Assertions.Expect(paused).ToContainTextAsync("Operator");
        Assert.True(long.Parse((await paused.Locator("td.lag").InnerTextAsync()).Replace(",", string.Empty, StringComparison.Ordinal), System.Globalization.CultureInfo.InvariantCulture) >= 7);
        await Screenshot(page, "operations-page-consumers.png");

        await paused.GetByRole(AriaRole.Button, new() { Name = "Resume" }).ClickAsync();
        await Assertions.Expect(paused.Locator("td.lag")).ToHaveTextAsync("0");
        await Assertions.Expect(paused).Not.ToContainTextAsync("Operator");
        await page.Context.CloseAsync();
    }

    [SkippableFact]
    public async Task APoisonRecord_AppearsInItsFailureGroup_DecodedFromTheWritersSchema()
    {
        string key = "poison-" + Guid.NewGuid().ToString("N");
        app.Refused[key] = true;
        var order = new OrderPlaced { OrderId = key, Customer = "grace", PlacedAtUnixMs = 1_700_000_000_000 };
        order.Lines.Add(new OrderPlaced.Types.Line { Sku = "sku-42", Quantity = 3, UnitPriceCents = 250 });
        app.Produce(PageApp.Topic, new Message<string, byte[]> { Key = key, Value = app.Serialize(order) });
        using HttpClient viewer = app.HttpClientFor(PageApp.Viewer);
        await ApiTests.DeadLetterWithKey(viewer, PageApp.DeadLetterTopic, key); // it is there before the page looks

        IPage page = await app.PageFor(PageApp.Operator, "operator", 1280, 1100);
        await page.GotoAsync(app.Url + "/kafka/");
        ILocator group = page.Locator("details.group").Filter(new() { HasText = "order " + key + " refused by the handler" });
        await Assertions.Expect(group.Locator("summary")).ToContainTextAsync(typeof(OrderRefusedException).FullName!);
        await Assertions.Expect(group.Locator("summary")).ToContainTextAsync("handler");
        ILocator value = group.Locator("pre.value");
        await Assertions.Expect(value).ToContainTextAsync("\"orderId\": \"" + key + "\"");
        await Assertions.Expect(value).ToContainTextAsync("\"sku\": \"sku-42\"");
        await Assertions.Expect(group.Locator(".part-title").Nth(1)).ToContainTextAsync("shop.v1.OrderPlaced");
        await group.ScrollIntoViewIfNeededAsync();
        await Screenshot(page, "operations-page-dead-letters.png");

        await group.GetByRole(AriaRole.Button, new() { Name = "Raw bytes" }).Nth(1).ClickAsync();
        await Assertions.Expect(group.Locator("pre.raw")).ToHaveTextAsync(Convert.ToBase64String(app.Serialize(order)));
        await page.Context.CloseAsync();
    }

    [SkippableFact]
    public async Task AHostileDeadLetter_RunsNoScript_AndShowsItsText()
    {
        string key = "hostile-<b onmouseover=\"window.__pwned=3\">k</b>-" + Guid.NewGuid().ToString("N");
        const string script = "<script>window.__pwned=1</script>";
        const string image = "<img src=x onerror=\"window.__pwned=2\">";
        string customer = script + image + "\u001b[31mred\u001b[0m \u202eevil";
        app.Refused[key] = true;
        var headers = new Headers { { "note", Encoding.UTF8.GetBytes(image + script) } };
        app.Produce(PageApp.Topic, new Message<string, byte[]> { Key = key, Value = app.Serialize(new OrderPlaced { OrderId = "o-1", Customer = customer }), Headers = headers });
        using HttpClient viewer = app.HttpClientFor(PageApp.Viewer);
        await ApiTests.DeadLetterWithKey(viewer, PageApp.DeadLetterTopic, key);

        IPage page = await app.PageFor(PageApp.Operator, "operator");
        var consoleErrors = new System.Collections.Concurrent.ConcurrentQueue<string>();
        page.Console += (_, message) => consoleErrors.Enqueue(message.Text);
        await page.GotoAsync(app.Url + "/kafka/");
        ILocator record = page.Locator(".record").Filter(new() { HasText = key });
        await Assertions.Expect(record.Locator("pre.value")).ToContainTextAsync(script + "<img src=x onerror=\\\"window.__pwned=2\\\">"); // as JSON writes it
        await Assertions.Expect(record).ToContainTextAsync("\\u202e"); // the bidi override shown as an escape, not applied
        await Assertions.Expect(record.Locator("table.headers")).ToContainTextAsync(image + script);
        Assert.Equal(0, await page.Locator("#dlq-groups img, #dlq-groups script, #dlq-groups b").CountAsync());
        await record.HoverAsync();
        Assert.True(await page.EvaluateAsync<bool>("() => typeof window.__pwned === 'undefined'"));

        // What the browser itself refuses: an inline script, were one to get in, is blocked by the page's policy.
        await page.EvaluateAsync("() => { const s = document.createElement('script'); s.textContent = 'window.__pwned = 9'; document.body.append(s); }");
        Assert.True(await page.EvaluateAsync<bool>("() => typeof window.__pwned === 'undefined'"));
        await page.Context.CloseAsync();
    }

    [SkippableFact]
    public async Task ADryRun_ThenARedrive_PutsTheRecordBackByteForByte_AndASecondClickStartsNothing()
    {
        string key = "redrive-" + Guid.NewGuid().ToString("N");
        app.Refused[key] = true;
        byte[] value = app.Serialize(new OrderCancelled { OrderId = key, Reason = "changed my mind" });
        var headers = new Headers { { "trace", Encoding.UTF8.GetBytes("abc") } };
        app.Produce(PageApp.Topic, new Message<string, byte[]> { Key = key, Value = value, Headers = headers });
        using HttpClient viewer = app.HttpClientFor(PageApp.Viewer);
        await ApiTests.DeadLetterWithKey(viewer, PageApp.DeadLetterTopic, key);
        app.Refused.TryRemove(key, out _); // the handler's bug is fixed

        IPage page = await app.PageFor(PageApp.Operator, "operator");
        await page.GotoAsync(app.Url + "/kafka/");
        await page.Locator("#dlq-topic").SelectOptionAsync(PageApp.DeadLetterTopic);
        await page.Locator("input[name=key]").FillAsync(key);
        await page.GetByRole(AriaRole.Button, new() { Name = "Dry run" }).ClickAsync();
        await Assertions.Expect(page.Locator("#dry-run-summary")).ToContainTextAsync("Would write 1;");
        await Assertions.Expect(page.Locator("#dry-run-result tbody tr")).ToHaveCountAsync(1);
        await Assertions.Expect(page.Locator("#dry-run-result tbody")).ToContainTextAsync("would write");
        Assert.DoesNotContain(app.Handled, r => r.Message.Key == key); // a dry run writes nothing
        await Screenshot(page, "operations-page-redrive.png");

        ILocator redrive = page.Locator("#redrive-run");
        await Assertions.Expect(redrive).ToHaveTextAsync("Redrive 1 record");
        await redrive.ClickAsync();
        await Assertions.Expect(redrive).ToBeDisabledAsync();
        ILocator run = page.Locator("#runs tr[data-state]").Filter(new() { HasText = "key=" + key });
        await Assertions.Expect(run).ToHaveAttributeAsync("data-state", "completed");
        await Assertions.Expect(run.Locator("td.written")).ToHaveTextAsync("1");
        await Assertions.Expect(run).ToContainTextAsync(PageApp.Operator);

        await PageApp.Until(() => app.Handled.Any(r => r.Message.Key == key), "the redriven record handled");
        Message<string, byte[]> back = FindRedriven(key);
        Assert.Equal(value, back.Value);
        Assert.Equal("abc", Encoding.UTF8.GetString(back.Headers.GetLastBytes("trace")));
        Assert.Equal(1, app.Handled.Count(r => r.Message.Key == key));
        Assert.Contains(app.Logs.Lines("KafkaProtobuf.AspNetCore.OperationsPage"), l => l.Contains("started by " + PageApp.Operator, StringComparison.Ordinal) && l.Contains("1 written", StringComparison.Ordinal));
        await page.Context.CloseAsync();
    }

    [SkippableFact]
    public async Task AUserWithoutTheActPolicy_SeesNoButton_AndIsForbiddenToAct()
    {
        IPage page = await app.PageFor(PageApp.Viewer);
        await page.GotoAsync(app.Url + "/kafka/");
        await Assertions.Expect(page.Locator("#user")).ToContainTextAsync(PageApp.Viewer + " · may look");
        await Assertions.Expect(page.Locator("[data-consumer='orders'] tbody tr")).ToHaveCountAsync(3);
        Assert.Equal(0, await page.Locator("[data-consumer] button").CountAsync());
        await Assertions.Expect(page.Locator("#redrive")).ToBeHiddenAsync();

        int status = await page.EvaluateAsync<int>(
            "async () => (await fetch('api/consumers/orders/pause', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ topic: 'orders', partition: 0 }) })).status");
        Assert.Equal(403, status);
        await page.Context.CloseAsync();
    }

    [SkippableFact]
    public async Task OnAPhone_ThePageFitsItsWidth()
    {
        IPage page = await app.PageFor(PageApp.Operator, "operator", 390, 844);
        await page.GotoAsync(app.Url + "/kafka/");
        await Assertions.Expect(page.Locator("[data-consumer='orders'] tbody tr")).ToHaveCountAsync(3);
        int scrollWidth = await page.EvaluateAsync<int>("() => document.documentElement.scrollWidth");
        Assert.True(scrollWidth <= 390, "the page is " + scrollWidth + " px wide on a 390 px screen"); // wide tables scroll inside their box
        await Screenshot(page, "operations-page-phone.png");
        await page.Context.CloseAsync();
    }

    private Message<string, byte[]> FindRedriven(string key)
    {
        for (int partition = 0; partition < 3; partition++)
        {
            ConsumeResult<string, byte[]>? record = app.ReadAll(PageApp.Topic, partition)
                .LastOrDefault(r => r.Message.Key == key && r.Message.Headers.TryGetLastBytes(KafkaProtobuf.Redrive.RedriveHeaderNames.Run, out _));
            if (record is not null)
            {
                return record.Message;
            }
        }

        throw new InvalidOperationException("no redriven record with key " + key + " in " + PageApp.Topic);
    }

    private static async Task PostUntilApplied(HttpClient client, string path, object body) =>
        await PageApp.Until(async () => (await client.PostAsJsonAsync(path, body)).IsSuccessStatusCode, "the consumer to hold its partitions");

    private static async Task Screenshot(IPage page, string name)
    {
        string folder = Environment.GetEnvironmentVariable("KAFKAPROTOBUF_SCREENSHOTS") ?? Path.Combine(AppContext.BaseDirectory, "screenshots");
        Directory.CreateDirectory(folder);
        string path = Path.Combine(folder, name);
        await page.ScreenshotAsync(new PageScreenshotOptions { Path = path, FullPage = true });
        Assert.True(new FileInfo(path).Length > 1000);
    }
}
