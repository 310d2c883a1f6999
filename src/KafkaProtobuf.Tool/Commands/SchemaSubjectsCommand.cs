using System;
using System.Collections.Generic;
using System.CommandLine;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Text.RegularExpressions;
using KafkaProtobuf.Tool.Output;

namespace KafkaProtobuf.Tool.Commands;

/// <summary><c>kafka-protobuf schema subjects [--subject-pattern REGEX] [--output text|json]</c>: the registry's subjects.</summary>
internal static class SchemaSubjectsCommand
{
    public static Command Create(TextWriter output, TextWriter error)
    {
        var pattern = new Option<string?>("--subject-pattern") { Description = "Only subjects whose whole name matches this regular expression (.NET syntax).", HelpName = "regex" };
        var format = new Option<string>("--output") { Description = "text (one subject per line) or json.", DefaultValueFactory = _ => "text", HelpName = "text|json" };
        format.AcceptOnlyFromAmong("text", "json");
        var registry = new SchemaOptions();
        var command = new Command("subjects", "List the registry's subjects (deleted ones left out), in the registry's order. Exit code 0, 2 usage, 3 registry unreachable.") { pattern, format };
        registry.AddRegistryTo(command);
        command.SetAction(async (result, cancellationToken) =>
        {
            Regex? matcher;
            try
            {
                matcher = result.GetValue(pattern) is { } regex ? SubjectPattern.Parse(regex) : null;
            }
            catch (ArgumentException e)
            {
                return await RegistryCommandRun.Fail(error, "schema subjects", e.Message, ExitCodes.Usage).ConfigureAwait(false);
            }

            return await RegistryCommandRun.RunAsync("schema subjects", result, registry, error, async client =>
            {
                IEnumerable<string> subjects = await client.GetSubjectsAsync(cancellationToken).ConfigureAwait(false);
                List<string> listed = subjects.Where(s => matcher?.IsMatch(s) ?? true).ToList();
                await output.WriteAsync(result.GetValue(format) == "json" ? Json(listed) : string.Concat(listed.Select(s => TerminalText.Neutralize(s) + "\n"))).ConfigureAwait(false);
                return ExitCodes.Ok;
            }).ConfigureAwait(false);
        });
        return command;
    }

    private static string Json(List<string> subjects)
    {
        using var buffer = new MemoryStream();
        using (var writer = new Utf8JsonWriter(buffer, JsonFormat.Compact))
        {
            JsonFormat.WriteStartObject(writer);
            writer.WriteStartArray("subjects");
            subjects.ForEach(writer.WriteStringValue);
            writer.WriteEndArray();
            writer.WriteEndObject();
        }

        return TerminalText.EscapeBidi(Encoding.UTF8.GetString(buffer.ToArray())) + "\n";
    }
}
