using System;
using System.CommandLine;
using System.Linq;
using KafkaProtobuf.Tool.Commands;

// kafka-protobuf: look inside framed Kafka records. Exit codes: 0 ok, 1 bad records (--fail-on-error), 2 usage,
// 3 Kafka or Schema Registry unreachable.
RootCommand root = KafkaProtobufTool.CreateRootCommand(Console.Out, Console.Error);
ParseResult parsed = root.Parse(args);
if (parsed.Errors.Count > 0)
{
    foreach (System.CommandLine.Parsing.ParseError e in parsed.Errors)
    {
        Console.Error.WriteLine("kafka-protobuf: " + e.Message);
    }

    Console.Error.WriteLine("Try 'kafka-protobuf --help'.");
    return ExitCodes.Usage;
}

return await parsed.InvokeAsync().ConfigureAwait(false);
