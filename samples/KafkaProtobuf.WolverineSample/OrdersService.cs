using System;
using System.Collections.Concurrent;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Redrive;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Wolverine;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Shop.V1;
using Wolverine;
using Wolverine.Kafka;

namespace KafkaProtobuf.WolverineSample;

/// <summary>
/// The service: Wolverine handlers for the shop's order events, read from one topic by schema id and message-index
/// path, published through the registering serializer; a record that cannot be read lands in the dead-letter topic as
/// it was written, with the reason.
/// </summary>
public static class OrdersService
{
    public const string Topic = "orders";

    public const string DeadLetterTopic = "orders.dead-letters";

    /// <summary>What a run did: messages handled, dead letters written.</summary>
    public sealed record Outcome(int Handled, int DeadLetters);

    public static async Task<Outcome> RunAsync(string bootstrapServers, string registryUrl, TextWriter log, CancellationToken cancellationToken)
    {
        using var registry = new RegistryClient(registryUrl);
        OrderHandlers.Log = log;
        OrderHandlers.Reset();

        using IHost host = Host.CreateDefaultBuilder()
            .ConfigureLogging(logging => logging.SetMinimumLevel(LogLevel.Warning))
            .UseWolverine(opts =>
            {
                opts.Discovery.DisableConventionalDiscovery().IncludeType(typeof(OrderHandlers));
                opts.UseKafka(bootstrapServers)
                    .ConfigureConsumers(consumer =>
                    {
                        consumer.GroupId = "orders-service";
                        consumer.AutoOffsetReset = AutoOffsetReset.Earliest; // a new group reads the topic from its start
                    })
                    .DeadLetterQueueTopicName(DeadLetterTopic);

                // Every type of shop.proto, by each record's schema id (prefix or header) and message-index path.
                opts.ListenToKafkaTopic(Topic)
                    .ReadProtobuf(new MultiTypeProtobufDeserializer(
                        [ShopReflection.Descriptor], new MultiTypeDeserializerOptions { WriterSchemas = { Source = registry } }))
                    .EnableNativeDeadLetterQueue(); // what cannot be read goes to DeadLetterTopic, byte for byte

                // Published messages: registered under "orders-value", the schema id in the record's prefix.
                opts.PublishMessage<OrderPlaced>().ToKafkaTopic(Topic).WriteProtobuf(registry);
                opts.PublishMessage<OrderCancelled>().ToKafkaTopic(Topic).WriteProtobuf(registry);
            })
            .Build();
        await host.StartAsync(cancellationToken);

        IMessageBus bus = host.Services.GetRequiredService<IMessageBus>();
        for (int i = 1; i <= 3; i++)
        {
            await bus.PublishAsync(new OrderPlaced { OrderId = "order-" + i, Customer = "ada", Lines = { new OrderPlaced.Types.Line { Sku = "tea", Quantity = i } } });
        }

        await bus.PublishAsync(new OrderCancelled { OrderId = "order-2", Reason = "changed mind" });

        // Another application writes a record that is not a framed Protobuf message.
        using (IProducer<byte[], byte[]> producer = new ProducerBuilder<byte[], byte[]>(new ProducerConfig { BootstrapServers = bootstrapServers }).Build())
        {
            await producer.ProduceAsync(Topic, new Message<byte[], byte[]> { Value = "{\"orderId\":\"order-4\"}"u8.ToArray() }, cancellationToken);
        }

        int deadLetters = await ReadDeadLetterAsync(bootstrapServers, log, cancellationToken);
        while (OrderHandlers.Handled < 4 && !cancellationToken.IsCancellationRequested)
        {
            await Task.Delay(50, cancellationToken);
        }

        await host.StopAsync(cancellationToken);
        return new Outcome(OrderHandlers.Handled, deadLetters);
    }

    private static async Task<int> ReadDeadLetterAsync(string bootstrapServers, TextWriter log, CancellationToken cancellationToken)
    {
        using IConsumer<byte[], byte[]> consumer = new ConsumerBuilder<byte[], byte[]>(new ConsumerConfig
        {
            BootstrapServers = bootstrapServers,
            GroupId = "orders-dead-letter-reader-" + Guid.NewGuid().ToString("N"),
            AutoOffsetReset = AutoOffsetReset.Earliest,
        }).Build();
        consumer.Subscribe(DeadLetterTopic);
        while (!cancellationToken.IsCancellationRequested)
        {
            if (consumer.Consume(TimeSpan.FromMilliseconds(200)) is { IsPartitionEOF: false } record)
            {
                DeadLetter letter = DeadLetter.Read(record);
                await log.WriteLineAsync($"dead letter: {letter.ErrorCode} from {letter.SourceTopic} [{letter.SourcePartition}] @{letter.SourceOffset}, {record.Message.Value.Length} bytes as written");
                return 1;
            }
        }

        return 0;
    }
}

/// <summary>The handlers: Wolverine finds them by their message types.</summary>
public static class OrderHandlers
{
    private static int _handled;

    public static TextWriter Log { get; set; } = TextWriter.Null;

    public static int Handled => Volatile.Read(ref _handled);

    public static void Reset() => Interlocked.Exchange(ref _handled, 0);

    public static void Handle(OrderPlaced placed)
    {
        Log.WriteLine($"placed {placed.OrderId}: {placed.Lines.Count} line(s) for {placed.Customer}");
        Interlocked.Increment(ref _handled);
    }

    public static void Handle(OrderCancelled cancelled)
    {
        Log.WriteLine($"cancelled {cancelled.OrderId}: {cancelled.Reason}");
        Interlocked.Increment(ref _handled);
    }
}
