using Confluent.Kafka;
using KafkaProtobuf.SchemaRegistry;
using Vectors.Telemetry.V1;
using Wolverine;
using Wolverine.Kafka;
using Wolverine.Sqlite;

namespace KafkaProtobuf.Wolverine.Tests.Snippets;

/// <summary>Wolverine as docs/wolverine.md and the package's readme show it (read by DocSnippetTests in KafkaProtobuf.Tests). Compiled, not run.</summary>
internal static class WolverineSnippets
{
    internal static void Setup(WolverineOptions opts, RegistryClient registry)
    {
        #region wolverine-quick-start
        opts.UseKafka("localhost:9092")
            .ConfigureConsumers(consumer => consumer.AutoOffsetReset = AutoOffsetReset.Earliest)
            .DeadLetterQueueTopicName("telemetry.dead-letters");

        // Every type of telemetry.proto, each record by its schema id (prefix or header) and message-index path.
        opts.ListenToKafkaTopic("telemetry")
            .ReadProtobuf(new MultiTypeProtobufDeserializer(
                [TelemetryReflection.Descriptor],
                new MultiTypeDeserializerOptions { WriterSchemas = { Source = registry } }))
            .EnableNativeDeadLetterQueue();

        // Registered under "telemetry-value"; the schema id in the prefix (or SchemaIdPlacement.Header).
        opts.PublishMessage<Reading>().ToKafkaTopic("telemetry").WriteProtobuf(registry);
        #endregion
    }

    internal static void DurableInbox(WolverineOptions opts, RegistryClient registry)
    {
        #region wolverine-durable-inbox
        opts.PersistMessagesWithSqlite("Data Source=wolverine.db"); // or any of Wolverine's message stores
        opts.ListenToKafkaTopic("telemetry")
            .ReadProtobuf(new MultiTypeProtobufDeserializer(
                [TelemetryReflection.Descriptor],
                new MultiTypeDeserializerOptions { WriterSchemas = { Source = registry } }))
            .UseDurableInbox()
            .EnableNativeDeadLetterQueue();
        #endregion
    }

    internal static void CompiledOnly(WolverineOptions opts)
    {
        #region wolverine-compiled-only
        // No registry: the generated types are the writer's schema (the schema id is read, not looked up).
        opts.ListenToKafkaTopic("telemetry")
            .ReadProtobuf(MultiTypeProtobufDeserializer.ForFiles(TelemetryReflection.Descriptor))
            .EnableNativeDeadLetterQueue();
        #endregion
    }

    internal static void Headers(WolverineOptions opts, RegistryClient registry)
    {
        #region wolverine-header-ids
        opts.PublishMessage<Device>().ToKafkaTopic("devices")
            .WriteProtobuf(registry, new RegistrySerializerOptions { SchemaIdPlacement = SchemaIdPlacement.Header });
        #endregion
    }

    #region wolverine-handler
    public static class ReadingHandler
    {
        // Wolverine.IMessage and Google.Protobuf.IMessage share a name: alias one where both are in scope.
        public static void Handle(Reading reading, Envelope envelope)
        {
            Confluent.Kafka.Headers? headers = envelope.RecordHeaders(); // the record's own headers, binary ones as bytes
        }
    }
    #endregion
}
