using System;
using System.Collections.Generic;
using System.CommandLine;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Tool.Output;
using KafkaProtobuf.Tool.Schemas;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>
/// <c>kafka-protobuf schema baseline write DIR FILE… (--subject S | --topic T …)</c>: records .proto files in a committed
/// baseline (<see cref="SchemaBaseline"/>), each under the subject a producer would register it under, offline; a
/// subject's schema that changed becomes its next version, as a registration would, so transitive levels see history.
/// </summary>
internal static class SchemaBaselineCommand
{
    public static Command Create(TextWriter output, TextWriter error)
    {
        var folder = new Argument<string>("dir") { Description = "The baseline folder (created if missing): one JSON file per subject, to commit." };
        var files = new Argument<string[]>("files") { Description = ".proto files to record, each with what it imports.", Arity = ArgumentArity.OneOrMore };
        var subjects = new SubjectOptions();
        var protoPaths = new Option<string[]>("--proto-path", "-I") { Description = "A folder imports are looked up in and files are named from, as protoc's -I; repeatable.", HelpName = "dir" };
        var descriptorSets = SchemaRegisterCommand.DescriptorSetOption();
        var level = new Option<string?>("--level") { Description = "The level changes to the subjects are checked at (default: the subject's level in the baseline, else BACKWARD).", HelpName = "level" };
        var write = new Command("write", "Record .proto files in a baseline folder, offline: a subject's changed schema becomes its next version, an unchanged one is left as it is. Exit code 0, 2 usage or a file that does not compile.")
        {
            folder, files, protoPaths, descriptorSets, level,
        };
        subjects.AddTo(write);
        write.SetAction(async result =>
        {
            string[] paths = result.GetValue(files) ?? [];
            string? levelName = result.GetValue(level);
            CompatibilityLevel chosen = CompatibilityLevel.Backward;
            string? usage = subjects.Usage(result, paths.Length)
                ?? (levelName is not null && !CompatibilityLevelNames.TryParse(levelName, out chosen) ? "--level is one of " + string.Join(", ", CompatibilityLevelNames.All) : null);
            if (usage is not null)
            {
                return await RegistryCommandRun.Fail(error, "schema baseline write", usage + ".", ExitCodes.Usage).ConfigureAwait(false);
            }

            try
            {
                string dir = result.GetValue(folder)!;
                string[] roots = result.GetValue(protoPaths) ?? [];
                List<BaselineEntry> entries = SchemaBaseline.Read(dir);
                var changed = new List<BaselineEntry>();
                foreach ((string subject, FileDescriptor file) in subjects.Targets(result, ProtoFiles.Load(paths, roots, result.GetValue(descriptorSets) ?? [])))
                {
                    FileDescriptorSet set = SetOf(file);
                    BaselineEntry? entry = entries.FirstOrDefault(e => e.Subject == subject);
                    string what;
                    if (entry is null)
                    {
                        entry = new BaselineEntry(subject, file.Name, chosen, [set]);
                        entries.Add(entry);
                        what = "recorded";
                    }
                    else if (entry.File != file.Name)
                    {
                        // The subject's file moved: its history stays (each version holds its own file, last in its set).
                        string moved = entry.File;
                        entries.Remove(entry);
                        entry = new BaselineEntry(subject, file.Name, entry.Level, [.. entry.Versions, set]);
                        entries.Add(entry);
                        what = "recorded version " + entry.Versions.Count + " (moved from " + TerminalText.Neutralize(moved) + ") of";
                    }
                    else if (!entry.Versions[entry.Versions.Count - 1].Equals(set))
                    {
                        entry.Versions.Add(set);
                        what = "recorded version " + entry.Versions.Count + " of";
                    }
                    else
                    {
                        what = "unchanged:";
                    }

                    if (levelName is not null)
                    {
                        entry.Level = chosen;
                    }

                    changed.Add(entry);
                    await output.WriteAsync(what + " " + TerminalText.Neutralize(subject) + " (" + TerminalText.Neutralize(file.Name) + ", "
                        + CompatibilityLevelNames.Of(entry.Level) + ") in " + SchemaBaseline.FileNameOf(subject) + "\n").ConfigureAwait(false);
                }

                SchemaBaseline.Write(dir, changed.Distinct());
                return ExitCodes.Ok;
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or FormatException or ArgumentException or InvalidDataException)
            {
                return await RegistryCommandRun.Fail(error, "schema baseline write", e.Message, ExitCodes.Usage).ConfigureAwait(false);
            }
        });
        return new Command("baseline", "A committed baseline of schemas, for checks offline (schema check --baseline DIR).") { write };
    }

    /// <summary>The file and everything it imports, imports first, as the descriptors generated code embeds.</summary>
    private static FileDescriptorSet SetOf(FileDescriptor file)
    {
        var set = new FileDescriptorSet();
        var seen = new HashSet<string>(StringComparer.Ordinal);
        Add(file);
        return set;

        void Add(FileDescriptor f)
        {
            if (!seen.Add(f.Name))
            {
                return;
            }

            foreach (FileDescriptor import in f.Dependencies)
            {
                Add(import);
            }

            set.File.Add(FileDescriptorProto.Parser.ParseFrom(f.SerializedData));
        }
    }
}
