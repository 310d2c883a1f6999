// A service as the hosting docs show it, run by HostedConsumerProcessTests: consume string values from a topic with no
// dead-letter topic, and stop the application after the first record whose value is "stop". A record that cannot be
// deserialized (a value that is not UTF-8) stops the consumer for good: the process must then exit non-zero.
// Arguments: bootstrap servers, topic, group.
using System;
using System.Text;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using KafkaProtobuf.Hosting.Batching;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Service;
using KafkaProtobuf.Hosting.Diagnostics;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Health;
using KafkaProtobuf.Hosting.Retrying;
using KafkaProtobuf.Hosting.Scheduling;

HostApplicationBuilder builder = Host.CreateApplicationBuilder();
builder.Services
    .AddKafkaProtobufConsumer<Ignore, string>("process", options =>
    {
        options.Consumer = new ConsumerConfig { BootstrapServers = args[0], GroupId = args[2], AutoOffsetReset = AutoOffsetReset.Earliest };
        options.Topics.Add(args[1]);
    })
    .WithValueDeserializer(_ => new StrictUtf8())
    .Handle((services, record, _) =>
    {
        Console.WriteLine("handled " + record.Message.Value);
        if (record.Message.Value == "stop")
        {
            services.GetRequiredService<IHostApplicationLifetime>().StopApplication();
        }

        return Task.CompletedTask;
    });
builder.Build().Run();

/// <summary>UTF-8 that refuses bytes that are not: such a record is poison.</summary>
internal sealed class StrictUtf8 : IDeserializer<string>
{
    private static readonly UTF8Encoding Encoding = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    public string Deserialize(ReadOnlySpan<byte> data, bool isNull, SerializationContext context) => Encoding.GetString(data);
}
