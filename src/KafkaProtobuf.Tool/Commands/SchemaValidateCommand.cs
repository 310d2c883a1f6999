using System;
using System.Collections.Generic;
using System.CommandLine;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tool.Output;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>
/// <c>kafka-protobuf schema validate FILE… [-I DIR] [--schema-registry URL]</c>: whether .proto files compile, each
/// import found below the import roots, else (with a registry) the latest version of the subject its path names, as
/// the serializers register imports: a file is valid before what it imports is registered.
/// </summary>
internal static class SchemaValidateCommand
{
    public static Command Create(TextWriter output, TextWriter error)
    {
        var files = new Argument<string[]>("files") { Description = ".proto files to validate.", Arity = ArgumentArity.OneOrMore };
        var protoPaths = new Option<string[]>("--proto-path", "-I") { Description = "A folder imports are looked up in and files are named from, as protoc's -I; repeatable.", HelpName = "dir" };
        var registry = new SchemaOptions();
        var command = new Command("validate", "Whether .proto files compile, imports found below the import roots or else in the registry (the subject of the import's path, latest version). Exit code 0 valid, 2 a file that does not compile (file:line:column: message) or usage, 3 registry unreachable.")
        {
            files, protoPaths,
        };
        registry.AddRegistryTo(command);
        command.SetAction(async (result, cancellationToken) =>
        {
            string[] paths = result.GetValue(files) ?? [];
            string[] roots = (result.GetValue(protoPaths) ?? []).Select(Path.GetFullPath).ToArray();
            RegistryClient? client;
            try
            {
                client = registry.Client(result, warning => error.WriteLine("kafka-protobuf: warning: " + warning));
            }
            catch (ArgumentException e)
            {
                return await RegistryCommandRun.Fail(error, "schema validate", e.Message, ExitCodes.Usage).ConfigureAwait(false);
            }

            using RegistryClient? disposing = client;
            try
            {
                foreach (string path in paths)
                {
                    string full = Path.GetFullPath(path);
                    string name = Schemas.ProtoFiles.NameOf(full, roots);
                    string[] searched = [.. roots, Path.GetDirectoryName(full) ?? "."];
                    var fromRegistry = new List<string>();
                    FileDescriptorSet set = ProtoSource.Compile(name, File.ReadAllText(full), import =>
                        searched.Select(root => Path.Combine(root, import)).Where(File.Exists).Select(File.ReadAllText).FirstOrDefault()
                        ?? FromRegistry(client, import, fromRegistry, cancellationToken));
                    FileDescriptor.BuildFromByteStrings(set.File.Select(f => Google.Protobuf.MessageExtensions.ToByteString(f))); // types that clash across files fail here
                    await output.WriteAsync("valid " + TerminalText.Neutralize(name) + " (" + set.File.Count + (set.File.Count == 1 ? " file" : " files")
                        + (fromRegistry.Count == 0 ? string.Empty : "; from the registry: " + TerminalText.Neutralize(string.Join(", ", fromRegistry))) + ")\n").ConfigureAwait(false);
                }

                return ExitCodes.Ok;
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or FormatException or ArgumentException)
            {
                return await RegistryCommandRun.Fail(error, "schema validate", e.Message, ExitCodes.Usage).ConfigureAwait(false);
            }
            catch (SchemaRegistryRequestException e)
            {
                return await RegistryCommandRun.Fail(error, "schema validate", "the registry could not be asked: " + e.Message, ExitCodes.ConnectionFailure).ConfigureAwait(false);
            }
        });
        return command;
    }

    /// <summary>
    /// An import's text from the registry (the latest version of the subject its path names), or null when there is no
    /// registry or no such subject. The compiler asks synchronously; the tool has nothing else to do meanwhile.
    /// </summary>
    private static string? FromRegistry(RegistryClient? client, string import, List<string> fromRegistry, CancellationToken cancellationToken)
    {
        if (client is null || import.StartsWith("google/protobuf/", StringComparison.Ordinal))
        {
            return null; // no registry; or a well-known file, which the compiler has built in
        }

        try
        {
            RegistrySchema schema = client.GetLatestVersionTextAsync(import, cancellationToken).GetAwaiter().GetResult();
            fromRegistry.Add(import + " v" + schema.Version);
            return schema.Schema;
        }
        catch (SchemaRegistryRequestException e) when (e.IsNotFound)
        {
            return null; // the compiler says it is not found, at the import's line
        }
    }
}
