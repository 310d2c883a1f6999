using System;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Wolverine.Tests.Support;
using Microsoft.Extensions.Hosting;
using Vectors.Telemetry.V1;
using Wolverine;
using Wolverine.ErrorHandling;
using Wolverine.Kafka;
using Wolverine.Sqlite;
using Xunit;

namespace KafkaProtobuf.Wolverine.Tests;

/// <summary>An envelope Wolverine stored (its durable inbox) is read again from storage, its record's bytes and headers intact.</summary>
[Collection(KafkaTests.Name)]
public sealed class DurableInboxTests(KafkaFixture kafka)
{
    [Fact]
    public async Task A_stored_envelope_is_replayed_by_another_host_from_the_durable_inbox()
    {
        using InProcessSchemaRegistry registry = InProcessSchemaRegistry.Start();
        using var client = new RegistryClient(registry.Url);
        string topic = kafka.NewTopic("readings");
        string dead = kafka.NewTopic("dead");
        string database = Path.Combine(Path.GetTempPath(), "kafkaprotobuf-wolverine-" + Guid.NewGuid().ToString("N") + ".db");
        string sensor = "stored-" + Guid.NewGuid().ToString("N");
        var reading = new Reading { SensorId = sensor, Value = 7 };
        (byte[] value, Headers headers) = DeadLetterTests.Write(client, topic, reading);
        byte[] guid = headers.GetLastBytes("__value_schema_id");
        WolverineApp.Produce(kafka.Cluster, topic, [new() { Value = value, Headers = headers }]);

        void Configure(WolverineOptions opts)
        {
            opts.PersistMessagesWithSqlite("Data Source=" + database);
            opts.Policies.OnException<InvalidOperationException>().ScheduleRetry(TimeSpan.FromSeconds(2));
            opts.ListenToKafkaTopic(topic).ReadProtobuf(DeadLetterTests.RegistryReader(client)).UseDurableInbox().EnableNativeDeadLetterQueue();
        }

        try
        {
            // The first host stores the record in its inbox, its handler fails, and the retry is stored for later.
            TelemetryHandlers.Fail(sensor);
            IHost first = await WolverineApp.StartAsync(kafka.Cluster, dead, AutoOffsetReset.Earliest, Configure);
            try
            {
                SpinWait.SpinUntil(() => TelemetryHandlers.Refusals(sensor) > 0, WolverineApp.Wait);
                Assert.True(TelemetryHandlers.Refusals(sensor) > 0, "the first host never ran the handler");
            }
            finally
            {
                await WolverineApp.StopAsync(first);
            }

            // A second host, reading only what Kafka gets from now on, runs the stored retry: read from the inbox's copy.
            TelemetryHandlers.Heal(sensor);
            IHost second = await WolverineApp.StartAsync(kafka.Cluster, dead, AutoOffsetReset.Latest, Configure);
            try
            {
                HandledRecord handled = Handled.WaitFor(topic, 1, WolverineApp.Wait)[0];
                Assert.Equal(reading, handled.Message);
                Assert.Equal(guid, handled.RecordHeaders!.GetLastBytes("__value_schema_id"));
            }
            finally
            {
                await WolverineApp.StopAsync(second);
            }
        }
        finally
        {
            TelemetryHandlers.Heal(sensor);
            foreach (string file in Directory.GetFiles(Path.GetDirectoryName(database)!, Path.GetFileName(database) + "*"))
            {
                File.Delete(file);
            }
        }
    }
}
