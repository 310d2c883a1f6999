using System;
using System.Collections.Generic;
using System.CommandLine;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Decoding;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tool.Output;
using KafkaProtobuf.Tool.Schemas;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>
/// <c>kafka-protobuf schema check OLD NEW</c> (or <c>NEW --registry URL --subject S</c>): whether a schema may follow
/// another, or a subject's versions, at a compatibility level, with the registry's rules
/// (<see cref="ProtobufCompatibility"/>): every difference with its kind, path and a sentence. A schema is a .proto file
/// (compiled by <see cref="ProtoSource"/>, imports looked up in its own directory, then each <c>--proto-path</c>) or a
/// descriptor set. Exit code 0 when compatible, 1 when not, 2 on a usage error or a schema that cannot be read, 3 when
/// the registry cannot be asked.
/// </summary>
internal static class SchemaCommand
{
    /// <summary>Not compatible at the level asked.</summary>
    public const int Incompatible = 1;

    public static Command Create(TextWriter output, TextWriter error)
    {
        var schemas = new Argument<string[]>("schemas")
        {
            Description = "OLD NEW: the earlier schema and the new one, each a .proto file or a descriptor set (protoc --include_imports --descriptor_set_out; its last file is the schema unless --file names another). With --registry: NEW only.",
            Arity = new ArgumentArity(0, 2),
        };
        var level = new Option<string?>("--level") { Description = "NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL or FULL_TRANSITIVE. Default: BACKWARD (the registry's default), or with --registry the subject's level.", HelpName = "level" };
        var file = new Option<string?>("--file") { Description = "The schema's file name within descriptor sets, when it is not their last file.", HelpName = "name" };
        var protoPaths = new Option<string[]>("--proto-path", "-I") { Description = "A directory .proto imports are looked up in, after the importing file's own; repeatable; with --baseline, the folders the subjects' files are found in (as protoc's -I).", HelpName = "dir" };
        var subject = new Option<string?>("--subject") { Description = "With --registry: the subject whose versions NEW is checked against.", HelpName = "subject" };
        var format = new Option<string>("--output") { Description = "text (one line per difference), json, or with --baseline msvs (file(line,col): error KPS1012: ..., clickable in IDEs and CI logs).", DefaultValueFactory = _ => "text", HelpName = "format" };
        var baseline = new Option<string?>("--baseline") { Description = "Check every subject of a baseline folder (schema baseline write), offline: its current file, found below each --proto-path or in --descriptor-set, against the baseline's versions (with --registry: the registry's).", HelpName = "dir" };
        var descriptorSets = new Option<string[]>("--descriptor-set") { Description = "With --baseline: the current files as protoc descriptor sets (--include_imports; --include_source_info gives each change's line and column); repeatable.", HelpName = "file.pb" };
        var suppressionsFile = new Option<string?>("--suppressions") { Description = "With --baseline: a file of accepted breaks (diagnostic id, subject, path), as package validation's CompatibilitySuppressions.xml.", HelpName = "file.xml" };
        var writeSuppressions = new Option<bool>("--write-suppressions") { Description = "With --baseline and --suppressions: write every incompatible change found into the suppressions file (accepting them) instead of failing." };
        var warnOnly = new Option<bool>("--warn-only") { Description = "With --baseline: report incompatible changes (msvs: as warnings) but exit 0." };
        var registry = new SchemaOptions();
        var check = new Command("check", "Whether NEW may follow OLD (or a registry subject's versions) at a compatibility level, checked as Schema Registry checks Protobuf schemas: every difference with its kind, path and whether it is compatible. Exit code 0 compatible, 1 not, 2 usage or unreadable schema, 3 registry unreachable.")
        {
            schemas,
            level,
            file,
            protoPaths,
            subject,
            format,
            baseline,
            descriptorSets,
            suppressionsFile,
            writeSuppressions,
            warnOnly,
        };
        registry.AddRegistryTo(check);
        check.SetAction(async (result, cancellationToken) =>
        {
            string outputFormat = result.GetValue(format) ?? "text";
            string? levelName = result.GetValue(level);
            string[] paths = result.GetValue(schemas) ?? [];
            string? subjectName = result.GetValue(subject);
            bool fromRegistry = result.GetValue(registry.Registry) is not null;
            CompatibilityLevel chosen = CompatibilityLevel.Backward;
            string? baselineFolder = result.GetValue(baseline);
            if (baselineFolder is not null)
            {
                return await CheckBaselineAsync(result, baselineFolder, paths, subjectName, levelName, outputFormat, cancellationToken).ConfigureAwait(false);
            }

            string? usage = outputFormat is not ("text" or "json") ? "--output is text or json"
                : result.GetValue(descriptorSets) is { Length: > 0 } || result.GetValue(suppressionsFile) is not null || result.GetValue(writeSuppressions) || result.GetValue(warnOnly)
                    ? "--descriptor-set, --suppressions, --write-suppressions and --warn-only go with --baseline"
                : levelName is not null && !CompatibilityLevelNames.TryParse(levelName, out chosen) ? "--level is one of " + string.Join(", ", CompatibilityLevelNames.All)
                : fromRegistry != (subjectName is not null) ? "--registry and --subject go together"
                : paths.Length != (fromRegistry ? 1 : 2) ? (fromRegistry ? "with --registry, give NEW only" : "give OLD and NEW")
                : null;
            if (usage is not null)
            {
                await error.WriteLineAsync("kafka-protobuf schema check: " + usage + ".").ConfigureAwait(false);
                return ExitCodes.Usage;
            }

            RegistryClient? client;
            try
            {
                client = registry.Client(result, warning => error.WriteLine("kafka-protobuf: warning: " + warning));
            }
            catch (ArgumentException e)
            {
                await error.WriteLineAsync("kafka-protobuf schema check: " + e.Message).ConfigureAwait(false); // a secret file that cannot be read
                return ExitCodes.Usage;
            }

            using RegistryClient? disposing = client;
            CompatibilityVerdict verdict;
            RegistryCompatibilityVerdict? registryVerdict = null;
            string? registryUnavailable = null;
            try
            {
                string[] importRoots = result.GetValue(protoPaths) ?? [];
                ProtoSchema after = Read(paths[paths.Length - 1], result.GetValue(file), importRoots);
                IReadOnlyList<ProtoSchema> earlier;
                if (client is null)
                {
                    earlier = [Read(paths[0], result.GetValue(file), importRoots)];
                }
                else
                {
                    SubjectHistory history = await SubjectHistory.ReadAsync(client, subjectName!, cancellationToken).ConfigureAwait(false);
                    earlier = history.Versions;
                    chosen = levelName is null ? history.Level : chosen;
                }

                verdict = ProtobufCompatibility.Check(after, earlier, chosen); // a schema too deep to compare is the file's fault too
                if (client is not null)
                {
                    (registryVerdict, registryUnavailable) = await RegistryVerdictAsync(
                        client, subjectName!, paths[paths.Length - 1], result.GetValue(file), importRoots, cancellationToken).ConfigureAwait(false);
                }
            }
            catch (Exception e) when (e is IOException or InvalidDataException or UnauthorizedAccessException or InvalidProtocolBufferException or ArgumentException or FormatException or UnusableSchemaException)
            {
                await error.WriteLineAsync("kafka-protobuf schema check: " + e.Message).ConfigureAwait(false);
                return ExitCodes.Usage;
            }
            catch (SchemaRegistryRequestException e)
            {
                await error.WriteLineAsync("kafka-protobuf schema check: the registry could not be asked: " + e.Message).ConfigureAwait(false);
                return ExitCodes.ConnectionFailure;
            }

            await output.WriteAsync(outputFormat == "json"
                ? Json(verdict, registryVerdict, registryUnavailable)
                : Text(verdict, registryVerdict, registryUnavailable)).ConfigureAwait(false);
            return verdict.IsCompatible && (registryVerdict?.IsCompatible ?? true) ? ExitCodes.Ok : Incompatible;
        });

        async Task<int> CheckBaselineAsync(
            ParseResult result, string folder, string[] paths, string? subjectName, string? levelName, string outputFormat, CancellationToken cancellationToken)
        {
            CompatibilityLevel chosen = CompatibilityLevel.Backward;
            string? usage = paths.Length > 0 || subjectName is not null ? "--baseline checks the baseline's subjects: give no schema and no --subject"
                : outputFormat is not ("text" or "json" or "msvs") ? "--output is text, json or msvs"
                : result.GetValue(writeSuppressions) && result.GetValue(suppressionsFile) is null ? "--write-suppressions needs --suppressions FILE"
                : levelName is not null && !CompatibilityLevelNames.TryParse(levelName, out chosen) ? "--level is one of " + string.Join(", ", CompatibilityLevelNames.All)
                : null;
            if (usage is not null)
            {
                return await RegistryCommandRun.Fail(error, "schema check", usage + ".", ExitCodes.Usage).ConfigureAwait(false);
            }

            var run = new BaselineCheckRun
            {
                Baseline = folder,
                DescriptorSets = result.GetValue(descriptorSets) ?? [],
                ImportRoots = result.GetValue(protoPaths) ?? [],
                Format = outputFormat,
                WarnOnly = result.GetValue(warnOnly),
                SuppressionsFile = result.GetValue(suppressionsFile),
                WriteSuppressions = result.GetValue(writeSuppressions),
                Level = levelName is null ? null : chosen,
            };
            if (result.GetValue(registry.Registry) is null)
            {
                try
                {
                    return await run.RunAsync(null, output, cancellationToken).ConfigureAwait(false);
                }
                catch (Exception e) when (e is IOException or UnauthorizedAccessException or FormatException or ArgumentException or InvalidProtocolBufferException or UnusableSchemaException or InvalidDataException)
                {
                    return await RegistryCommandRun.Fail(error, "schema check", e.Message, ExitCodes.Usage).ConfigureAwait(false);
                }
            }

            return await RegistryCommandRun.RunAsync("schema check", result, registry, error, client => run.RunAsync(client, output, cancellationToken)).ConfigureAwait(false);
        }

        return new Command("schema", "Work with Protobuf schemas: register, download, list subjects, set compatibility levels, check changes.")
        {
            check,
            SchemaRegisterCommand.Create(output, error),
            SchemaDownloadCommand.Create(output, error),
            SchemaSubjectsCommand.Create(output, error),
            SchemaCompatibilityCommand.Create(output, error),
            SchemaBaselineCommand.Create(output, error),
            SchemaValidateCommand.Create(output, error),
        };
    }

    /// <summary>
    /// The registry's own verdict on NEW (its test-compatibility), NEW sent as a serializer would register it: its imports
    /// as references at the versions the registry holds them. An import the registry does not hold as it is here leaves
    /// the registry nothing to judge with: then the verdict is null, and why is said instead.
    /// </summary>
    private static async Task<(RegistryCompatibilityVerdict? Verdict, string? Unavailable)> RegistryVerdictAsync(
        RegistryClient client, string subject, string path, string? fileName, IReadOnlyList<string> importRoots, CancellationToken cancellationToken)
    {
        FileDescriptor file;
        if (path.EndsWith(".proto", StringComparison.OrdinalIgnoreCase))
        {
            file = ProtoFiles.Compile([path], [.. importRoots, Path.GetDirectoryName(Path.GetFullPath(path)) ?? "."])[0];
        }
        else
        {
            IReadOnlyList<FileDescriptor> files = DescriptorSetFile.Read(path);
            file = fileName is null ? files[files.Count - 1] : files.First(f => f.Name == fileName);
        }

        IReadOnlyList<RegistryReference> references;
        try
        {
            references = await new ProtobufSchemaRegistrar(client, new RegistrySerializerOptions { AutoRegisterSchemas = false })
                .RegisterImportsAsync(file, cancellationToken).ConfigureAwait(false);
        }
        catch (SchemaRegistryRequestException e) when (e.IsNotFound)
        {
            return (null, "an import of NEW is not registered as it is here, so the registry cannot judge NEW (register the import first: " + e.Message + ")");
        }

        try
        {
            return (await client.TestCompatibilityAsync(subject, file.SerializedData.ToBase64(), "PROTOBUF", references, cancellationToken).ConfigureAwait(false), null);
        }
        catch (SchemaRegistryRequestException e) when (e.StatusCode == 404 && e.ErrorCode == 40401)
        {
            return (new RegistryCompatibilityVerdict(true, ["the subject has no versions: the registry accepts any schema"]), null);
        }
    }

    /// <summary>A .proto file (compiled, imports from its directory, then the import roots) or a descriptor set.</summary>
    private static ProtoSchema Read(string path, string? fileName, IReadOnlyList<string> importRoots)
    {
        if (path.EndsWith(".proto", StringComparison.OrdinalIgnoreCase))
        {
            string name = Path.GetFileName(path);
            string[] roots = [Path.GetDirectoryName(Path.GetFullPath(path)) ?? ".", .. importRoots];
            FileDescriptorSet compiled = ProtoSource.Compile(name, File.ReadAllText(path), import =>
                roots.Select(root => Path.Combine(root, import)).Where(File.Exists).Select(File.ReadAllText).FirstOrDefault());
            return ProtoSchema.Of(compiled, name);
        }

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

    private static string Text(CompatibilityVerdict verdict, RegistryCompatibilityVerdict? registry, string? registryUnavailable)
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
        if (registryUnavailable is not null)
        {
            text.Append("The registry: not asked: ").Append(TerminalText.Neutralize(registryUnavailable)).Append(".\n");
        }

        if (registry is not null)
        {
            text.Append(registry.IsCompatible ? "The registry: compatible." : "The registry: not compatible.").Append('\n');
            foreach (string message in registry.Messages)
            {
                text.Append("  ").Append(TerminalText.Neutralize(BoundedText.Cut(message, 1000))).Append('\n');
            }

            if (registry.IsCompatible != verdict.IsCompatible)
            {
                text.Append("The registry and this check disagree: the registry ").Append(registry.IsCompatible ? "would accept" : "would refuse")
                    .Append(" what this check ").Append(verdict.IsCompatible ? "accepts" : "refuses").Append("; the registry decides at registration.\n");
            }
        }

        return text.ToString();
    }

    private static string Json(CompatibilityVerdict verdict, RegistryCompatibilityVerdict? registry, string? registryUnavailable)
    {
        using var buffer = new MemoryStream();
        using (var writer = new Utf8JsonWriter(buffer, JsonFormat.Compact))
        {
            JsonFormat.WriteStartObject(writer);
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
            if (registryUnavailable is not null)
            {
                writer.WriteStartObject("registry");
                writer.WriteString("unavailable", registryUnavailable);
                writer.WriteEndObject();
            }

            if (registry is not null)
            {
                writer.WriteStartObject("registry");
                writer.WriteBoolean("compatible", registry.IsCompatible);
                writer.WriteStartArray("messages");
                foreach (string message in registry.Messages)
                {
                    writer.WriteStringValue(BoundedText.Cut(message, 1000));
                }

                writer.WriteEndArray();
                writer.WriteBoolean("agrees", registry.IsCompatible == verdict.IsCompatible);
                writer.WriteEndObject();
            }

            writer.WriteEndObject();
        }

        return TerminalText.EscapeBidi(Encoding.UTF8.GetString(buffer.ToArray())) + "\n";
    }

    private static string Name(CompatibilityLevel level) => CompatibilityLevelNames.Of(level);
}
