using System;
using System.Collections.Generic;
using System.CommandLine;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Threading.Tasks;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Tool.Decoding;
using KafkaProtobuf.Tool.Output;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>
/// <c>kafka-protobuf schema check OLD NEW</c>: whether a schema may follow another at a compatibility level, with the
/// registry's rules (<see cref="ProtobufCompatibility"/>): every difference with its kind, path and a sentence. Exit
/// code 0 when compatible, 1 when not, 2 on a usage error or a file that is not a descriptor set.
/// </summary>
internal static class SchemaCommand
{
    /// <summary>Not compatible at the level asked.</summary>
    public const int Incompatible = 1;

    private static readonly Dictionary<string, CompatibilityLevel> Levels = new(StringComparer.OrdinalIgnoreCase)
    {
        ["NONE"] = CompatibilityLevel.None,
        ["BACKWARD"] = CompatibilityLevel.Backward,
        ["BACKWARD_TRANSITIVE"] = CompatibilityLevel.BackwardTransitive,
        ["FORWARD"] = CompatibilityLevel.Forward,
        ["FORWARD_TRANSITIVE"] = CompatibilityLevel.ForwardTransitive,
        ["FULL"] = CompatibilityLevel.Full,
        ["FULL_TRANSITIVE"] = CompatibilityLevel.FullTransitive,
    };

    public static Command Create(TextWriter output, TextWriter error)
    {
        var original = new Argument<string>("old") { Description = "The earlier schema: a descriptor set (protoc --include_imports --descriptor_set_out); its last file is the schema unless --file names another." };
        var update = new Argument<string>("new") { Description = "The new schema, likewise." };
        var level = new Option<string>("--level") { Description = "NONE, BACKWARD (the registry's default), BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL or FULL_TRANSITIVE.", DefaultValueFactory = _ => "BACKWARD", HelpName = "level" };
        var file = new Option<string?>("--file") { Description = "The schema's file name within both descriptor sets, when it is not their last file.", HelpName = "name" };
        var format = new Option<string>("--output") { Description = "text (one line per difference) or json.", DefaultValueFactory = _ => "text", HelpName = "format" };
        var check = new Command("check", "Whether NEW may follow OLD at a compatibility level, checked as Schema Registry checks Protobuf schemas: every difference with its kind, path and whether it is compatible. Exit code 0 compatible, 1 not, 2 usage or unreadable file.")
        {
            original,
            update,
            level,
            file,
            format,
        };
        check.SetAction(async (result, cancellationToken) =>
        {
            string outputFormat = result.GetValue(format) ?? "text";
            if (!Levels.TryGetValue(result.GetValue(level) ?? string.Empty, out CompatibilityLevel chosen) || outputFormat is not ("text" or "json"))
            {
                await error.WriteLineAsync("kafka-protobuf schema check: --level is one of " + string.Join(", ", Levels.Keys) + ", and --output text or json.").ConfigureAwait(false);
                return ExitCodes.Usage;
            }

            CompatibilityVerdict verdict;
            try
            {
                ProtoSchema before = Read(result.GetRequiredValue(original), result.GetValue(file));
                ProtoSchema after = Read(result.GetRequiredValue(update), result.GetValue(file));
                verdict = ProtobufCompatibility.Check(after, [before], chosen); // a schema too deep to compare is the file's fault too
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or InvalidProtocolBufferException or ArgumentException)
            {
                await error.WriteLineAsync("kafka-protobuf schema check: " + e.Message).ConfigureAwait(false);
                return ExitCodes.Usage;
            }

            await output.WriteAsync(outputFormat == "json" ? Json(verdict) : Text(verdict)).ConfigureAwait(false);
            return verdict.IsCompatible ? ExitCodes.Ok : Incompatible;
        });

        return new Command("schema", "Work with Protobuf schemas offline.") { check };
    }

    private static ProtoSchema Read(string path, string? fileName)
    {
        FileDescriptorSet set = FileDescriptorSet.Parser.ParseFrom(File.ReadAllBytes(path));
        try
        {
            return fileName is null ? ProtoSchema.Of(set) : ProtoSchema.Of(set, fileName);
        }
        catch (ArgumentException e)
        {
            throw new ArgumentException(path + ": " + e.Message, e);
        }
    }

    private static IEnumerable<(SchemaDifference Difference, CompatibilityDirection Direction)> Differences(CompatibilityVerdict verdict) =>
        verdict.Comparisons.SelectMany(c => c.Differences.Select(d => (d, c.Direction))).Distinct();

    private static string Text(CompatibilityVerdict verdict)
    {
        var text = new StringBuilder();
        bool both = verdict.Comparisons.Select(c => c.Direction).Distinct().Count() > 1;
        foreach ((SchemaDifference difference, CompatibilityDirection direction) in Differences(verdict))
        {
            text.Append(difference.IsCompatible ? "  compatible   " : "  INCOMPATIBLE ")
                .Append(difference.Code).Append(' ').Append(TerminalText.Neutralize(difference.Path))
                .Append(both ? (direction == CompatibilityDirection.Backward ? " (backward)" : " (forward)") : string.Empty)
                .Append(": ").Append(TerminalText.Neutralize(difference.Description)).Append('\n');
        }

        string level = Name(verdict.Level);
        int incompatible = verdict.Incompatibilities.Count;
        text.Append(verdict.IsCompatible ? "Compatible at " + level + "." : "Not compatible at " + level + ": " + incompatible + (incompatible == 1 ? " incompatible difference." : " incompatible differences.")).Append('\n');
        return text.ToString();
    }

    private static string Json(CompatibilityVerdict verdict)
    {
        using var buffer = new MemoryStream();
        using (var writer = new Utf8JsonWriter(buffer, ProtoJsonDecoder.Compact))
        {
            writer.WriteStartObject();
            writer.WriteBoolean("compatible", verdict.IsCompatible);
            writer.WriteString("level", Name(verdict.Level));
            writer.WriteStartArray("differences");
            foreach ((SchemaDifference difference, CompatibilityDirection direction) in Differences(verdict))
            {
                writer.WriteStartObject();
                writer.WriteString("kind", difference.Code);
                writer.WriteString("path", difference.Path);
                writer.WriteBoolean("compatible", difference.IsCompatible);
                writer.WriteString("direction", direction == CompatibilityDirection.Backward ? "backward" : "forward");
                writer.WriteString("description", difference.Description);
                writer.WriteEndObject();
            }

            writer.WriteEndArray();
            writer.WriteEndObject();
        }

        return TerminalText.EscapeBidi(Encoding.UTF8.GetString(buffer.ToArray())) + "\n";
    }

    private static string Name(CompatibilityLevel level) => Levels.First(l => l.Value == level).Key;
}
