using System;
using System.Collections.Concurrent;
using System.Linq;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Tests.Shared;
using Google.Protobuf;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using Microsoft.AspNetCore.Authentication;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Playwright;
using Shop.V1;
using Xunit;

namespace KafkaProtobuf.AspNetCore.Tests;

/// <summary>
/// A web application on 127.0.0.1 as a user would build one: the hosted consumer of the sample's shop.proto on an
/// embedded cluster with an in-process registry, dead letters to <see cref="DeadLetterTopic"/>, sign-in by header
/// (<see cref="HeaderAuthentication"/>), a read policy (signed in) and an act policy (role <c>operator</c>), the page
/// at <c>/kafka</c>; and a headless chromium to look at it. Shared by the tests of one collection: each works on
/// records with keys of its own.
/// </summary>
public sealed class PageApp : IAsyncLifetime
{
    public const string Topic = "orders";
    public const string DeadLetterTopic = "orders.dlq";
    public const string BulkTopic = "bulk.dlq";
    public const string UnsignedRowsTopic = "rows-unsigned.dlq";
    public const string SignedRowsTopic = "rows-signed.dlq";
    public const string ConsumerName = "orders";
    public const string Operator = "olga";
    public const string Viewer = "victor";

    /// <summary>The longest any wait in these tests takes before it fails.</summary>
    public static readonly TimeSpan Timeout = TimeSpan.FromSeconds(60);

    private WebApplication? _app;
    private IPlaywright? _playwright;
    private IBrowser? _browser;

    public EmbeddedKafkaCluster Cluster { get; private set; } = null!;

    public InProcessSchemaRegistry Registry { get; private set; } = null!;

    public RegistryClient Client { get; private set; } = null!;

    public string Url { get; private set; } = string.Empty;

    /// <summary>Records the handler took, in order.</summary>
    public ConcurrentQueue<ConsumeResult<string, IMessage>> Handled { get; } = new();

    /// <summary>Keys whose records the handler refuses (a bug in the handler, fixed by taking the key out).</summary>
    public ConcurrentDictionary<string, bool> Refused { get; } = new();

    internal LogCapture Logs { get; } = new();

    public async Task InitializeAsync()
    {
        Cluster = EmbeddedKafkaCluster.Start(1);
        Cluster.CreateTopic(Topic, 3);
        Cluster.CreateTopic(DeadLetterTopic, 1);
        Cluster.CreateTopic(BulkTopic, 2);
        Registry = InProcessSchemaRegistry.Start();
        Client = new RegistryClient(Registry.Url);
        _app = Build(options =>
        {
            options.ReadPolicy = "kafka-read";
            options.ActPolicy = "kafka-act";
            options.Kafka = new ClientConfig { BootstrapServers = Cluster.BootstrapServers };
            options.WriterSchemaSource = Client;
            options.DeadLetterTopics.Add(BulkTopic);
            options.DeadLetterTopics.Add(UnsignedRowsTopic);
            options.DeadLetterTopics.Add(SignedRowsTopic);
            options.ProvenanceKeys = ProvenanceRows.Keys; // as the application's configuration gives them
        });
        await _app.StartAsync().WaitAsync(Timeout);
        Url = _app.Urls.Single();
    }

    public async Task DisposeAsync()
    {
        if (_browser is not null)
        {
            await _browser.DisposeAsync();
        }

        _playwright?.Dispose();
        if (_app is not null)
        {
            await _app.StopAsync().WaitAsync(Timeout);
            await _app.DisposeAsync();
        }

        Client.Dispose();
        Registry.Dispose();
        Cluster.Dispose();
    }

    /// <summary>A web application with the consumer and the page mapped by <paramref name="page"/>, not started.</summary>
    internal WebApplication Build(Action<KafkaProtobufOperationsOptions> page, bool withConsumer = true)
    {
        WebApplicationBuilder builder = WebApplication.CreateBuilder(new WebApplicationOptions { EnvironmentName = "Production" });
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Logging.ClearProviders().AddProvider(Logs);
        builder.Services.AddAuthentication(HeaderAuthentication.SchemeName)
            .AddScheme<AuthenticationSchemeOptions, HeaderAuthentication>(HeaderAuthentication.SchemeName, null);
        builder.Services.AddAuthorization(o =>
        {
            o.AddPolicy("kafka-read", p => p.RequireAuthenticatedUser());
            o.AddPolicy("kafka-act", p => p.RequireAuthenticatedUser().RequireRole("operator"));
        });
        builder.Services.AddAntiforgery();
        if (withConsumer)
        {
            builder.Services.AddSingleton(Client);
            builder.Services
                .AddKafkaProtobufConsumer<string, IMessage>(ConsumerName, options =>
                {
                    options.Consumer = new ConsumerConfig
                    {
                        BootstrapServers = Cluster.BootstrapServers,
                        GroupId = "page-tests",
                        AutoOffsetReset = AutoOffsetReset.Earliest,
                        SessionTimeoutMs = 6000,
                    };
                    options.Topics.Add(Topic);
                    options.DeadLetterTopic = DeadLetterTopic;
                    options.CopyProducer = new ProducerConfig { BootstrapServers = Cluster.BootstrapServers };
                    options.HandlerFailures.MaxAttempts = 1;
                })
                .WithProtobufValues(services => services.GetRequiredService<RegistryClient>(), ShopReflection.Descriptor)
                .Handle((record, _) =>
                {
                    if (Refused.ContainsKey(record.Message.Key))
                    {
                        throw new OrderRefusedException("order " + record.Message.Key + " refused by the handler\nsecond line of the message");
                    }

                    Handled.Enqueue(record);
                    return Task.CompletedTask;
                });
        }

        WebApplication app = builder.Build();
        app.UseAuthentication();
        app.UseAuthorization();
        app.MapKafkaProtobufOperations("/kafka", page);
        return app;
    }

    /// <summary>An order's value as the registry-aware serializer writes it (the bytes a redrive must put back).</summary>
    public byte[] Serialize(IMessage order) => order switch
    {
        OrderPlaced placed => new RegistryProtobufSerializer<OrderPlaced>(Client).Serialize(placed, new SerializationContext(MessageComponentType.Value, Topic))!,
        OrderCancelled cancelled => new RegistryProtobufSerializer<OrderCancelled>(Client).Serialize(cancelled, new SerializationContext(MessageComponentType.Value, Topic))!,
        _ => throw new ArgumentException("not an order", nameof(order)),
    };

    /// <summary>Writes records as they are to a topic.</summary>
    public void Produce(string topic, params Message<string, byte[]>[] records) => Produce(topic, null, records);

    public void Produce(string topic, int? partition, params Message<string, byte[]>[] records)
    {
        using IProducer<string, byte[]> producer = new ProducerBuilder<string, byte[]>(new ProducerConfig { BootstrapServers = Cluster.BootstrapServers, LingerMs = 5 }).Build();
        foreach (Message<string, byte[]> record in records)
        {
            if (partition is { } p)
            {
                producer.Produce(new TopicPartition(topic, p), record);
            }
            else
            {
                producer.Produce(topic, record);
            }
        }

        if (producer.Flush(Timeout) != 0)
        {
            throw new TimeoutException("records were not written in " + Timeout);
        }
    }

    /// <summary>Waits until <paramref name="done"/> holds, checking every 50 ms, failing after <see cref="Timeout"/>.</summary>
    public static Task Until(Func<bool> done, string what) => Until(() => Task.FromResult(done()), () => what);

    /// <inheritdoc cref="Until(Func{bool}, string)"/>
    public static Task Until(Func<Task<bool>> done, string what) => Until(done, () => what);

    /// <summary>Waits until <paramref name="done"/> holds; failing, says <paramref name="what"/> (what was seen last).</summary>
    public static async Task Until(Func<Task<bool>> done, Func<string> what)
    {
        using var giveUp = new CancellationTokenSource(Timeout);
        while (!await done())
        {
            if (giveUp.IsCancellationRequested)
            {
                throw new TimeoutException("gave up waiting for " + what());
            }

            await Task.Delay(50, CancellationToken.None);
        }
    }

    /// <summary>Every record of a topic's partition, from its start to its end now.</summary>
    public ConsumeResult<string, byte[]>[] ReadAll(string topic, int partition)
    {
        using IConsumer<string, byte[]> consumer = new ConsumerBuilder<string, byte[]>(new ConsumerConfig
        {
            BootstrapServers = Cluster.BootstrapServers,
            GroupId = "page-tests-reader-" + Guid.NewGuid().ToString("N"),
            EnablePartitionEof = true,
        }).Build();
        var tp = new TopicPartition(topic, partition);
        long end = consumer.QueryWatermarkOffsets(tp, Timeout).High.Value;
        consumer.Assign(new TopicPartitionOffset(tp, Offset.Beginning));
        var records = new System.Collections.Generic.List<ConsumeResult<string, byte[]>>();
        DateTime giveUp = DateTime.UtcNow + Timeout;
        while (records.Count < end && DateTime.UtcNow < giveUp)
        {
            ConsumeResult<string, byte[]>? record = consumer.Consume(TimeSpan.FromMilliseconds(200));
            if (record is { IsPartitionEOF: false })
            {
                records.Add(record);
            }
        }

        return [.. records];
    }

    /// <summary>A client signed in as <paramref name="user"/> (roles comma-separated), cookies kept (antiforgery's).</summary>
    public HttpClient HttpClientFor(string? user, string roles = "")
    {
        var client = new HttpClient(new HttpClientHandler { UseCookies = true, AllowAutoRedirect = false }) { BaseAddress = new Uri(Url + "/kafka/"), Timeout = Timeout };
        if (user is not null)
        {
            client.DefaultRequestHeaders.Add(HeaderAuthentication.UserHeader, user);
            client.DefaultRequestHeaders.Add(HeaderAuthentication.RolesHeader, roles);
        }

        return client;
    }

    /// <summary>A new browser page (its own context: cookies, size) signed in as <paramref name="user"/>.</summary>
    public async Task<IPage> PageFor(string user, string roles = "", int width = 1280, int height = 900)
    {
        Skip.IfNot(System.IO.File.Exists(BrowserPath), "chromium is not installed at " + BrowserPath + " (Debian: apt-get install chromium); .ci/run installs it.");
        if (_browser is null)
        {
            _playwright = await Playwright.CreateAsync();
            _browser = await _playwright.Chromium.LaunchAsync(new BrowserTypeLaunchOptions
            {
                ExecutablePath = BrowserPath,
                Headless = true,
                Args = ["--no-sandbox"],
                Timeout = (float)Timeout.TotalMilliseconds,
            });
        }

        IBrowserContext context = await _browser.NewContextAsync(new BrowserNewContextOptions
        {
            ViewportSize = new ViewportSize { Width = width, Height = height },
            ExtraHTTPHeaders = new System.Collections.Generic.Dictionary<string, string>
            {
                [HeaderAuthentication.UserHeader] = user,
                [HeaderAuthentication.RolesHeader] = roles,
            },
        });
        context.SetDefaultTimeout((float)Timeout.TotalMilliseconds);
        IPage page = await context.NewPageAsync();
        return page;
    }

    /// <summary>Debian's chromium (Playwright's own browser download is not reachable here); KAFKAPROTOBUF_CHROMIUM overrides.</summary>
    public static string BrowserPath => Environment.GetEnvironmentVariable("KAFKAPROTOBUF_CHROMIUM") ?? "/usr/lib/chromium/chromium";
}

/// <summary>The handler's failure for a refused order: the record is dead-lettered (one attempt).</summary>
public sealed class OrderRefusedException(string message) : Exception(message);

[CollectionDefinition(Name)]
public sealed class PageTests : ICollectionFixture<PageApp>
{
    public const string Name = "operations page";
}
