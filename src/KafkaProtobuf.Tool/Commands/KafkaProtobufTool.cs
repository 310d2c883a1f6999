using System.CommandLine;
using System.IO;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>The command tree, built apart from <c>Main</c> so tests can look at it.</summary>
internal static class KafkaProtobufTool
{
    public static RootCommand CreateRootCommand(TextWriter output, TextWriter error) =>
        new("kafka-protobuf: look inside Kafka records in Confluent Schema Registry framing (Protobuf), decoded from the writer's schema without generated classes. Exit codes: 0 ok, 1 bad records (with --fail-on-error), 2 usage, 3 Kafka or registry unreachable.")
        {
            FrameCommand.Create(output, error),
            ConsumeCommand.Create(output, error),
        };
}
