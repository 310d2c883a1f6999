using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading.Tasks;
using Aspire.Hosting.ApplicationModel;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;

namespace KafkaProtobuf.Aspire.Hosting.Commands;

/// <summary>
/// The dashboard's "Check .proto": whether a .proto file may be registered under a subject, checked against the
/// subject's versions at its compatibility level with the registry's own rules (<see cref="ProtobufCompatibility"/>);
/// every difference with its kind, path and a sentence. Registers nothing.
/// </summary>
internal static class ProtoCheckCommand
{
    public const string Name = "kafkaprotobuf-check-proto";

    public static CommandOptions Options() => new()
    {
        Description = "Whether a .proto may be registered under a subject: checked against the subject's versions at its compatibility level, every difference listed. Registers nothing.",
        Arguments = CommandArguments.Text(
            ("subject", "Subject", "The subject, e.g. orders-value."),
            ("proto", "The .proto", "The path of a .proto file on the AppHost's machine (imports beside it), or its text.")),
        IconName = "CheckmarkStarburst",
        UpdateState = CommandArguments.EnabledWhileRunning,
    };

    public static async Task<ExecuteCommandResult> ExecuteAsync(InProcessSchemaRegistryResource registry, ExecuteCommandContext context)
    {
        string? subject = CommandArguments.Value(context, "subject");
        string? proto = CommandArguments.Value(context, "proto");
        if (subject is null || proto is null)
        {
            return CommandResults.Failure("Give a subject and a .proto (its path or its text).");
        }

        if (registry.Registry is not { } running)
        {
            return CommandResults.Failure("The registry is not running.");
        }

        ProtoSchema update;
        try
        {
            update = Compile(proto);
        }
        catch (Exception e) when (e is ProtoSyntaxException or IOException or UnauthorizedAccessException or ArgumentException)
        {
            return CommandResults.Failure("The .proto cannot be compiled: " + BoundedText.Cut(e.Message));
        }

        using var client = new RegistryClient(running.Url);
        try
        {
            SubjectHistory history = await SubjectHistory.ReadAsync(client, subject, context.CancellationToken).ConfigureAwait(false);
            (IReadOnlyList<ProtoSchema> earlier, CompatibilityLevel level) = (history.Versions, history.Level);
            CompatibilityVerdict verdict = ProtobufCompatibility.Check(update, earlier, level);
            string shownSubject = "'" + BoundedText.Cut(subject, 250) + "'";
            string levelName = CompatibilityLevelNames.Of(verdict.Level);
            string versions = earlier.Count.ToString(CultureInfo.InvariantCulture) + (earlier.Count == 1 ? " version" : " versions");
            return verdict.IsCompatible
                ? CommandResults.Success("Compatible with " + shownSubject + " at " + levelName + " (" + versions + ").", Differences(verdict), CommandResultFormat.Text)
                : CommandResults.Failure(
                    "Not compatible with " + shownSubject + " at " + levelName + " (" + versions + "): "
                        + verdict.Incompatibilities.Count.ToString(CultureInfo.InvariantCulture) + " incompatible difference(s).",
                    Differences(verdict),
                    CommandResultFormat.Text);
        }
        catch (Exception e) when (e is SchemaRegistryRequestException or InvalidDataException or UnusableSchemaException)
        {
            return CommandResults.Failure("The registry's versions could not be read: " + BoundedText.Cut(e.Message));
        }
    }

    /// <summary>A file's path (imports looked up beside it) or .proto text (imports: the well-known types only).</summary>
    private static ProtoSchema Compile(string proto)
    {
        bool isPath = proto.EndsWith(".proto", StringComparison.OrdinalIgnoreCase) && !proto.Contains('\n', StringComparison.Ordinal);
        if (!isPath)
        {
            return ProtoSource.Schema(proto);
        }

        string name = Path.GetFileName(proto);
        string root = Path.GetDirectoryName(Path.GetFullPath(proto)) ?? ".";
        FileDescriptorSet compiled = ProtoSource.Compile(name, File.ReadAllText(proto), import =>
            File.Exists(Path.Combine(root, import)) ? File.ReadAllText(Path.Combine(root, import)) : null);
        return ProtoSchema.Of(compiled, name);
    }

    private static string Differences(CompatibilityVerdict verdict)
    {
        var text = new StringBuilder();
        foreach (SchemaDifference difference in verdict.Comparisons.SelectMany(c => c.Differences).Distinct())
        {
            text.Append(difference.IsCompatible ? "compatible    " : "INCOMPATIBLE  ")
                .Append(difference.Code).Append(' ').Append(BoundedText.Cut(difference.Path, 250))
                .Append(": ").Append(BoundedText.Cut(difference.Description, 500)).Append('\n');
        }

        return text.Length == 0 ? "No differences." : text.ToString();
    }
}
