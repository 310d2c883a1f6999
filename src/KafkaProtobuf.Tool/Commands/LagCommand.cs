using System;
using System.Collections.Generic;
using System.CommandLine;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Confluent.Kafka.Admin;
using KafkaProtobuf.Lag;
using KafkaProtobuf.Tool.Output;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>
/// <c>kafka-protobuf lag --group G [--topic T]</c>: per partition the group's committed offset, the end, the lag and the
/// member that owns it, with totals; <c>--output json</c>. Reads only (never joins the group, never commits). Exit code 0,
/// 2 usage, 3 Kafka unreachable.
/// </summary>
internal static class LagCommand
{
    public static Command Create(TextWriter output, TextWriter error)
    {
        var kafka = new KafkaOptions();
        var group = new Option<string>("--group", "-g") { Description = "The consumer group.", Required = true, HelpName = "id" };
        var topic = new Option<string[]>("--topic", "-t") { Description = "Only this topic (repeatable; default: every topic the group has committed offsets for).", HelpName = "topic" };
        var format = new Option<string>("--output") { Description = "text (a table) or json.", DefaultValueFactory = _ => "text", HelpName = "text|json" };
        format.AcceptOnlyFromAmong("text", "json");
        var command = new Command("lag", "A consumer group's lag: per partition the committed offset, the end, the lag and the member that owns it; totals. Reads only. Exit code 0, 2 usage, 3 Kafka unreachable.") { group, topic, format };
        kafka.AddTo(command);
        command.SetAction(async (result, cancellationToken) =>
        {
            var config = new ClientConfig();
            try
            {
                kafka.ApplyTo(config, result, warning => error.WriteLine("kafka-protobuf lag: warning: " + warning));
            }
            catch (ArgumentException e)
            {
                await error.WriteLineAsync("kafka-protobuf lag: " + e.Message).ConfigureAwait(false);
                return ExitCodes.Usage;
            }

            string groupId = result.GetRequiredValue(group);
            if (string.IsNullOrWhiteSpace(groupId))
            {
                await error.WriteLineAsync("kafka-protobuf lag: --group is empty: give the consumer group's id").ConfigureAwait(false);
                return ExitCodes.Usage;
            }

            ConsumerGroupLag lag;
            try
            {
                lag = await ConsumerGroupLag.MeasureAsync(config, groupId, result.GetValue(topic) ?? [], cancellationToken).ConfigureAwait(false);
            }
            catch (KafkaException e)
            {
                await error.WriteLineAsync("kafka-protobuf lag: " + TerminalText.Neutralize(e.Message)).ConfigureAwait(false);
                return ExitCodes.ConnectionFailure;
            }

            if (lag.OwnersUnknownReason is { } ownersUnknown)
            {
                await error.WriteLineAsync("kafka-protobuf lag: owners not shown, the brokers did not describe the group: " + TerminalText.Neutralize(ownersUnknown)).ConfigureAwait(false);
            }

            if (lag.NothingCommittedWarning is { } nothing)
            {
                await error.WriteLineAsync("kafka-protobuf lag: " + nothing).ConfigureAwait(false);
            }

            await output.WriteAsync(result.GetValue(format) == "json" ? Json(lag) : lag.ToTable()).ConfigureAwait(false);
            return ExitCodes.Ok;
        });
        return command;
    }

    private static string Json(ConsumerGroupLag lag)
    {
        using var buffer = new MemoryStream();
        using (var writer = new Utf8JsonWriter(buffer, JsonFormat.Compact))
        {
            JsonFormat.WriteStartObject(writer);
            writer.WriteString("group", lag.GroupId);
            writer.WriteNumber("totalLag", lag.TotalLag);
            writer.WriteStartArray("partitions");
            foreach (PartitionLag row in lag.Partitions)
            {
                writer.WriteStartObject();
                writer.WriteString("topic", row.Topic);
                writer.WriteNumber("partition", row.Partition);
                Number(writer, "committed", row.Committed);
                writer.WriteNumber("end", row.End);
                Number(writer, "lag", row.Lag);
                if (row.Owner is null)
                {
                    writer.WriteNull("owner");
                }
                else
                {
                    writer.WriteString("owner", row.Owner);
                }

                writer.WriteEndObject();
            }

            writer.WriteEndArray();
            writer.WriteEndObject();
        }

        return TerminalText.EscapeBidi(Encoding.UTF8.GetString(buffer.ToArray())) + "\n";
    }

    private static void Number(Utf8JsonWriter writer, string name, long? value)
    {
        if (value is long number)
        {
            writer.WriteNumber(name, number);
        }
        else
        {
            writer.WriteNull(name);
        }
    }

}
