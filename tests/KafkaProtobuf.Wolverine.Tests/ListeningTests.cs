using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Wolverine.Tests.Support;
using Microsoft.Extensions.Hosting;
using Vectors.Telemetry.V1;
using Wolverine.Kafka;
using Xunit;

namespace KafkaProtobuf.Wolverine.Tests;

[Collection(KafkaTests.Name)]
public sealed class ListeningTests(KafkaFixture kafka)
{
    [Fact]
    public async Task Confluent_serializer_frames_reach_the_handler_of_their_type_with_prefix_ids_and_guid_headers()
    {
        string topic = kafka.NewTopic("vectors");
        IReadOnlyList<ValueVector> vectors = ValueVector.All;
        WolverineApp.Produce(kafka.Cluster, topic, vectors.Select(v => new Message<byte[], byte[]> { Value = v.Data, Headers = v.KafkaHeaders() }));

        IHost host = await WolverineApp.StartAsync(kafka.Cluster, kafka.NewTopic("dead"), opts =>
            opts.ListenToKafkaTopic(topic).ReadProtobuf(MultiTypeProtobufDeserializer.ForFiles(TelemetryReflection.Descriptor)).EnableNativeDeadLetterQueue());
        try
        {
            IReadOnlyList<HandledRecord> handled = Handled.WaitFor(topic, vectors.Count, WolverineApp.Wait);

            Assert.Equal(
                vectors.Select(v => v.Type + " " + Convert.ToHexString(v.Payload)).Order(),
                handled.Select(h => h.Message.Descriptor.FullName + " " + Convert.ToHexString(h.Message.ToByteArray())).Order());
            // The binary GUID headers reach the handler as the bytes they were written as.
            Assert.Equal(
                vectors.Select(v => Describe(v.Type, v.Payload, v.KafkaHeaders())).Order(),
                handled.Select(h => Describe(h.Message.Descriptor.FullName, h.Message.ToByteArray(), h.RecordHeaders!)).Order());
            Assert.Equal(10, handled.Count(h => h.RecordHeaders!.Count == 1));
        }
        finally
        {
            await WolverineApp.StopAsync(host);
        }
    }

    private static string Describe(string type, byte[] payload, Headers headers) =>
        type + " " + Convert.ToHexString(payload) + string.Concat(headers.Select(h => " " + h.Key + "=" + Convert.ToHexString(h.GetValueBytes())));
}
