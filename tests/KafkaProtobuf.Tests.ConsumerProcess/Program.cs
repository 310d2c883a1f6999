// A service as the hosting docs show it, run by HostedConsumerProcessTests: consume string values from a topic with no
// dead-letter topic, and stop the application after the first record whose value is "stop". A record that cannot be
// deserialized (a value that is not UTF-8) stops the consumer for good: the process must then exit non-zero.
// Arguments: bootstrap servers, topic, group; then, optionally, how long the handler takes per record (ms) and the
// group session's length (ms, with commits every 100 ms), for the test that kills the process mid-stream.
using System;
using System.Globalization;
using System.Text;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

int handlerMs = args.Length > 3 ? int.Parse(args[3], CultureInfo.InvariantCulture) : 0;
int? sessionMs = args.Length > 4 ? int.Parse(args[4], CultureInfo.InvariantCulture) : null;
HostApplicationBuilder builder = Host.CreateApplicationBuilder();
builder.Services
    .AddKafkaProtobufConsumer<Ignore, string>("process", options =>
    {
        options.Consumer = new ConsumerConfig { BootstrapServers = args[0], GroupId = args[2], AutoOffsetReset = AutoOffsetReset.Earliest };
        if (sessionMs is { } session)
        {
            options.Consumer.SessionTimeoutMs = session;
            options.Consumer.HeartbeatIntervalMs = Math.Min(500, session / 3);
            options.Consumer.AutoCommitIntervalMs = 100;
        }

        options.Topics.Add(args[1]);
    })
    .WithValueDeserializer(_ => new StrictUtf8())
    .Handle(async (services, record, token) =>
    {
        if (handlerMs > 0)
        {
            await Task.Delay(handlerMs, token); // a database write, an HTTP call
        }

        Console.WriteLine("handled " + record.Message.Value);
        if (record.Message.Value == "stop")
        {
            services.GetRequiredService<IHostApplicationLifetime>().StopApplication();
        }
    });
builder.Build().Run();

/// <summary>UTF-8 that refuses bytes that are not: such a record is poison.</summary>
internal sealed class StrictUtf8 : IDeserializer<string>
{
    private static readonly UTF8Encoding Encoding = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    public string Deserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context) => Encoding.GetString(data);
}
