using System;
using System.Collections.Generic;
using System.CommandLine;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Tool.Output;
using KafkaProtobuf.Tool.Schemas;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>
/// <c>kafka-protobuf schema register FILE… (--subject S | --topic T [--key])</c>: registers .proto files as a
/// producer's serializer would (<see cref="ProtobufSchemaRegistrar"/>): each import found from the files themselves and
/// registered first under its import path, well-known files skipped, then each file under the subject the serializer's
/// naming gives it. <c>--dry-run</c> prints the plan and asks nothing.
/// </summary>
internal static class SchemaRegisterCommand
{
    public static Command Create(TextWriter output, TextWriter error)
    {
        var files = new Argument<string[]>("files") { Description = ".proto files to register, each with what it imports.", Arity = ArgumentArity.OneOrMore };
        var subjects = new SubjectOptions();
        var protoPaths = new Option<string[]>("--proto-path", "-I") { Description = "A folder imports are looked up in and files are named from, as protoc's -I; repeatable. A file under none is named by its file name and its imports are also looked up beside it.", HelpName = "dir" };
        var descriptorSets = DescriptorSetOption();
        var normalize = new Option<bool>("--normalize") { Description = "Ask the registry to normalize each schema first (the serializer's normalize.schemas; set it there too)." };
        var dryRun = new Option<bool>("--dry-run") { Description = "Print what would be registered, in order, and ask the registry nothing." };
        var registry = new SchemaOptions();
        var command = new Command("register", "Register .proto files as a producer's serializer would: each import first under its import path (well-known files skipped), then each file under its subject. Registering a schema a subject already has creates no new version. Exit code 0 registered, 1 refused as incompatible, 2 usage or a file that does not compile, 3 registry unreachable.")
        {
            files, protoPaths, descriptorSets, normalize, dryRun,
        };
        subjects.AddTo(command);
        registry.AddRegistryTo(command);
        command.SetAction(async (result, cancellationToken) =>
        {
            string[] paths = result.GetValue(files) ?? [];
            string? usage = subjects.Usage(result, paths.Length)
                ?? (!result.GetValue(dryRun) && result.GetValue(registry.Registry) is null ? "--schema-registry is required (or --dry-run)" : null);
            if (usage is not null)
            {
                return await RegistryCommandRun.Fail(error, "schema register", usage + ".", ExitCodes.Usage).ConfigureAwait(false);
            }

            IReadOnlyList<(string Subject, FileDescriptor File)> targets;
            try
            {
                targets = subjects.Targets(result, ProtoFiles.Load(paths, result.GetValue(protoPaths) ?? [], result.GetValue(descriptorSets) ?? []));
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or FormatException or ArgumentException or InvalidDataException)
            {
                return await RegistryCommandRun.Fail(error, "schema register", e.Message, ExitCodes.Usage).ConfigureAwait(false);
            }

            var options = new RegistrySerializerOptions { NormalizeSchemas = result.GetValue(normalize) };
            if (result.GetValue(dryRun))
            {
                await output.WriteAsync(Plan(targets, options)).ConfigureAwait(false);
                return ExitCodes.Ok;
            }

            return await RegistryCommandRun.RunAsync("schema register", result, registry, error, async client =>
            {
                var registrar = new ProtobufSchemaRegistrar(client, options);
                foreach ((string target, FileDescriptor file) in targets)
                {
                    IReadOnlyList<SchemaRegistrationStep> steps = ProtobufSchemaRegistrar.Plan(target, file, options);
                    IReadOnlyList<RegistrySchema> answers = await registrar.RegisterAsync(target, file, cancellationToken).ConfigureAwait(false);
                    for (int i = 0; i < steps.Count; i++)
                    {
                        await output.WriteAsync(Line("registered", steps[i], answers[i])).ConfigureAwait(false);
                    }
                }

                return ExitCodes.Ok;
            }).ConfigureAwait(false);
        });
        return command;
    }

    /// <summary>--descriptor-set: the files taken from protoc's output instead of compiled (what KafkaProtobuf.Build passes).</summary>
    internal static Option<string[]> DescriptorSetOption() => new("--descriptor-set")
    {
        Description = "Take the files from protoc descriptor sets (--include_imports) instead of compiling them: the compiler of the generated code, byte for byte what it embeds; repeatable. Files are named by their path below the --proto-path folders.",
        HelpName = "file.pb",
    };

    /// <summary>What would be registered, in order: each import once over the whole run, as the registry would see it.</summary>
    private static string Plan(IReadOnlyList<(string Subject, FileDescriptor File)> targets, RegistrySerializerOptions options)
    {
        var text = new System.Text.StringBuilder();
        var seen = new HashSet<string>(StringComparer.Ordinal);
        foreach ((string subject, FileDescriptor file) in targets)
        {
            foreach (SchemaRegistrationStep step in ProtobufSchemaRegistrar.Plan(subject, file, options))
            {
                if (seen.Add(step.Subject + "\n" + step.File.Name))
                {
                    text.Append(Line("would register", step, null));
                }
            }
        }

        return text.ToString();
    }

    private static string Line(string verb, SchemaRegistrationStep step, RegistrySchema? answer) =>
        verb + " " + TerminalText.Neutralize(step.File.Name) + " under " + TerminalText.Neutralize(step.Subject)
        + (answer is null ? string.Empty : ": id " + answer.Id + ", version " + answer.Version)
        + (step.References.Count == 0 ? string.Empty : " (references " + TerminalText.Neutralize(string.Join(", ", step.References)) + ")")
        + "\n";
}
