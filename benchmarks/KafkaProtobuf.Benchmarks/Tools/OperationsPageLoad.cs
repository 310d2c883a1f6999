using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Net.Http;
using System.Text.Json.Nodes;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.AspNetCore;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Testing;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.Benchmarks.Tools;

/// <summary>
/// <c>page [dead-letters] [records] [rounds]</c>: the operations page (KafkaProtobuf.AspNetCore) under load, on the
/// embedded cluster. (1) A dead-letter topic of 100,000 records (framed address books with their dead-letter headers,
/// decoded from the writer's file): the time of each page of its API, newest first, walking 30 windows back, then from
/// the middle and the start of the topic. (2) The hosted consumer's records/s over a backlog with the page closed and with
/// it open (a client that does what the open page does: consumers every 2 s, the dead letters' newest window every
/// 2 s), rounds alternating; the ratio of the medians.
/// </summary>
internal static class OperationsPageLoad
{
    private const string DeadLetterTopic = "orders.dlq";
    private const int DeadLetterPartitions = 4; // the mock keeps about 5 MB of a partition's log
    private const int BacklogPartitions = 12; // the mock keeps about 5 MB of a partition: 200,000 records need more than six

    public static void Run(string[] args) => RunAsync(args).GetAwaiter().GetResult();

    private static async Task RunAsync(string[] args)
    {
        int deadLetters = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 100_000;
        int records = args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 200_000;
        int rounds = args.Length > 3 ? int.Parse(args[3], CultureInfo.InvariantCulture) : 3;
        using EmbeddedKafkaCluster cluster = EmbeddedKafkaCluster.Start(1);
        cluster.CreateTopic(DeadLetterTopic, DeadLetterPartitions);
        WriteDeadLetters(cluster, deadLetters);
        for (int round = 0; round < 2 * rounds; round++)
        {
            cluster.CreateTopic("backlog-" + round, BacklogPartitions);
            WriteBacklog(cluster, "backlog-" + round, records);
        }

        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{deadLetters:N0} dead letters on {DeadLetterPartitions} partitions; backlogs of {records:N0} records on {BacklogPartitions} partitions; .NET {Environment.Version}, {Environment.ProcessorCount} cores"));
        await PagesAsync(cluster);
        await ThroughputAsync(cluster, records, rounds);
    }

    private static async Task PagesAsync(EmbeddedKafkaCluster cluster)
    {
        var handled = new CountdownEvent(1);
        await using WebApplication app = Build(cluster, topic: null, handled);
        await app.StartAsync();
        using var http = new HttpClient { BaseAddress = new Uri(app.Urls.Single() + "/kafka/"), Timeout = TimeSpan.FromMinutes(1) };
        var times = new List<(string Window, double Ms, int Count)>();
        string? cursor = null;
        for (int page = 0; page < 31; page++)
        {
            (double ms, JsonNode json) = await TimedAsync(http, "api/dead-letters/" + DeadLetterTopic + (cursor is null ? string.Empty : "?before=" + Uri.EscapeDataString(cursor)));
            times.Add((page == 0 ? "newest" : "older " + page, ms, (int)json["count"]!));
            cursor = (string?)json["older"];
        }

        JsonNode first = (await TimedAsync(http, "api/dead-letters/" + DeadLetterTopic)).Json;
        var ranges = first["partitions"]!.AsArray().Select(p => ((int)p!["partition"]!, (long)p["start"]!, (long)p["end"]!)).ToList();
        foreach ((string name, Func<long, long, long> at) in new (string, Func<long, long, long>)[] { ("middle", (s, e) => (s + e) / 2), ("start", (s, _) => s + 50) })
        {
            string jump = string.Join(",", ranges.Select(r => r.Item1.ToString(CultureInfo.InvariantCulture) + ":" + at(r.Item2, r.Item3).ToString(CultureInfo.InvariantCulture)));
            (double ms, JsonNode json) = await TimedAsync(http, "api/dead-letters/" + DeadLetterTopic + "?before=" + Uri.EscapeDataString(jump));
            times.Add((name, ms, (int)json["count"]!));
        }

        foreach ((string window, double ms, int count) in times.Take(3).Concat(times.Skip(times.Count - 2)))
        {
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"  page {window}: {count} records in {ms:F0} ms"));
        }

        var all = times.Select(t => t.Ms).Order().ToList();
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"dead-letter pages ({times.Count}, 50 records each, decoded): median {all[all.Count / 2]:F0} ms, slowest {all[^1]:F0} ms"));
        await app.StopAsync();
    }

    private static async Task ThroughputAsync(EmbeddedKafkaCluster cluster, int records, int rounds)
    {
        var closed = new List<double>();
        var open = new List<double>();
        for (int round = 0; round < 2 * rounds; round++)
        {
            bool pageOpen = round % 2 == 1;
            var handled = new CountdownEvent(records);
            await using WebApplication app = Build(cluster, "backlog-" + round, handled);
            var clock = Stopwatch.StartNew();
            await app.StartAsync();
            using var stop = new CancellationTokenSource();
            Task polling = pageOpen ? PollAsync(app.Urls.Single() + "/kafka/", stop.Token) : Task.CompletedTask;
            if (!handled.Wait(TimeSpan.FromMinutes(2)))
            {
                using var http = new HttpClient { BaseAddress = new Uri(app.Urls.Single() + "/kafka/") };
                throw new TimeoutException(handled.CurrentCount + " records of the backlog not handled in 2 minutes; the consumer: " + await http.GetStringAsync("api/consumers"));
            }

            double perSecond = records / clock.Elapsed.TotalSeconds;
            stop.Cancel();
            await polling;
            await app.StopAsync();
            (pageOpen ? open : closed).Add(perSecond);
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"  round {round / 2 + 1}, page {(pageOpen ? "open" : "closed")}: {perSecond:N0} records/s"));
        }

        double median(List<double> values) => values.Order().ElementAt(values.Count / 2);
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"hosted consumer: page closed {median(closed):N0} records/s, page open {median(open):N0} records/s, open/closed {median(open) / median(closed):F3} (medians of {rounds})"));
    }

    /// <summary>What the open page asks: the consumers every 2 s, and the dead letters' newest window every 2 s.</summary>
    private static async Task PollAsync(string url, CancellationToken stop)
    {
        using var http = new HttpClient { BaseAddress = new Uri(url) };
        try
        {
            while (!stop.IsCancellationRequested)
            {
                await http.GetStringAsync("api/consumers", stop);
                await http.GetStringAsync("api/redrive/runs", stop);
                await http.GetStringAsync("api/dead-letters/" + DeadLetterTopic, stop);
                await Task.Delay(2000, stop);
            }
        }
        catch (OperationCanceledException)
        {
            // the round is over
        }
    }

    private static async Task<(double Ms, JsonNode Json)> TimedAsync(HttpClient http, string path)
    {
        var clock = Stopwatch.StartNew();
        string text = await http.GetStringAsync(path);
        return (clock.Elapsed.TotalMilliseconds, JsonNode.Parse(text)!);
    }

    private static WebApplication Build(EmbeddedKafkaCluster cluster, string? topic, CountdownEvent handled)
    {
        WebApplicationBuilder builder = WebApplication.CreateBuilder(new WebApplicationOptions { EnvironmentName = "Production" });
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Logging.ClearProviders();
        builder.Services.AddAntiforgery();
        if (topic is not null)
        {
            builder.Services.AddKafkaProtobufConsumer<Ignore, AddressBook.AddressBook>("backlog", options =>
                {
                    options.Consumer = new ConsumerConfig { BootstrapServers = cluster.BootstrapServers, GroupId = "page-load-" + topic, AutoOffsetReset = AutoOffsetReset.Earliest };
                    options.Topics.Add(topic);
                    options.DeadLetterTopic = DeadLetterTopic;
                    options.CopyProducer = new ProducerConfig { BootstrapServers = cluster.BootstrapServers };
                })
                .WithProtobufValues()
                .Handle((_, _) =>
                {
                    handled.Signal();
                    return Task.CompletedTask;
                });
        }

        WebApplication app = builder.Build();
        app.MapKafkaProtobufOperations("/kafka", page =>
        {
            page.AllowAnonymousOnLoopback = true;
            page.Kafka = new ClientConfig { BootstrapServers = cluster.BootstrapServers };
            page.WriterSchemaSource = new KafkaProtobuf.Decoding.SingleFileSchemaSource(AddressBook.AddressbookReflection.Descriptor);
            page.DeadLetterTopics.Add(DeadLetterTopic);
        });
        return app;
    }

    private static void WriteDeadLetters(EmbeddedKafkaCluster cluster, int count)
    {
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(cluster.CreateProducerConfig()).Build();
        byte[] value = Payloads.Frame(Payloads.Book("S"), SchemaIdPlacement.Prefix).Data;
        var failure = new TimeoutException("the payment service did not answer");
        for (int i = 0; i < count; i++)
        {
            var record = new ConsumeResult<byte[], byte[]>
            {
                TopicPartitionOffset = new TopicPartitionOffset("orders", i % DeadLetterPartitions, i),
                Message = new Message<byte[], byte[]> { Key = System.Text.Encoding.UTF8.GetBytes("order-" + i), Value = value, Headers = [] },
            };
            Produce(producer, DeadLetterTopic, record.ToDeadLetterMessage(failure));
        }

        producer.Flush(TimeSpan.FromMinutes(2));
    }

    private static void WriteBacklog(EmbeddedKafkaCluster cluster, string topic, int count)
    {
        using IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(cluster.CreateProducerConfig()).Build();
        byte[] value = Payloads.Frame(Payloads.Book("S"), SchemaIdPlacement.Prefix).Data;
        for (int i = 0; i < count; i++)
        {
            // keyed, so the partitioner spreads them evenly: the mock drops the oldest of a partition past about 5 MB
            Produce(producer, topic, new Message<byte[], byte[]> { Key = BitConverter.GetBytes(i), Value = value });
        }

        producer.Flush(TimeSpan.FromMinutes(2));
    }

    private static void Produce(IProducer<byte[], byte[]> producer, string topic, Message<byte[], byte[]> message)
    {
        while (true)
        {
            try
            {
                producer.Produce(topic, message);
                return;
            }
            catch (ProduceException<byte[], byte[]> e) when (e.Error.Code == ErrorCode.Local_QueueFull)
            {
                producer.Poll(TimeSpan.FromMilliseconds(50));
            }
        }
    }
}
