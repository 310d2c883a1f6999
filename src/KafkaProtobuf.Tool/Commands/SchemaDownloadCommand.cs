using System;
using System.Collections.Generic;
using System.CommandLine;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using System.Threading;
using System.Threading.Tasks;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Tool.Output;
using KafkaProtobuf.Tool.Schemas;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>
/// <c>kafka-protobuf schema download (--subject S | --subject-pattern REGEX) [--version V] --output DIR</c>: each
/// schema as .proto text with every schema it references, each written at its import path, so that protoc (or
/// Grpc.Tools) compiles the folder as it is.
/// </summary>
internal static class SchemaDownloadCommand
{
    /// <summary>More files than this in one download is not a schema set but a runaway reference chain.</summary>
    private const int MaxFiles = 10_000;

    public static Command Create(TextWriter output, TextWriter error)
    {
        var subjects = new Option<string[]>("--subject") { Description = "A subject to download; repeatable.", HelpName = "subject" };
        var pattern = new Option<string?>("--subject-pattern") { Description = "Download every subject whose whole name matches this regular expression (.NET syntax).", HelpName = "regex" };
        var version = new Option<int?>("--version") { Description = "The version to download (default: each subject's latest). References are downloaded at the versions the schema names.", HelpName = "n" };
        var folder = new Option<string>("--output", "-o") { Description = "The folder to write into (created if missing). Each reference is written at its import path; a subject's own schema there too when it is also imported, else at the subject when it is an import path (shop/v1/common.proto), else as {subject}.proto.", Required = true, HelpName = "dir" };
        var registry = new SchemaOptions();
        var command = new Command("download", "Download schemas with every schema they reference, each written at the path its importers name it by, so the folder compiles as it is (protoc -I DIR). Nothing is written when a path would leave the folder or two schemas would share one. Exit code 0 written, 2 usage, 3 registry unreachable or a subject missing.")
        {
            subjects, pattern, version, folder,
        };
        registry.AddRegistryTo(command);
        command.SetAction(async (result, cancellationToken) =>
        {
            string[] named = result.GetValue(subjects) ?? [];
            string? regex = result.GetValue(pattern);
            int? chosen = result.GetValue(version);
            string? usage = (named.Length > 0) == (regex is not null) ? "give --subject or --subject-pattern"
                : chosen is < 1 ? "--version starts at 1"
                : null;
            Regex? matcher = null;
            try
            {
                matcher = regex is null ? null : SubjectPattern.Parse(regex);
            }
            catch (ArgumentException e)
            {
                usage ??= e.Message;
            }

            if (usage is not null)
            {
                return await RegistryCommandRun.Fail(error, "schema download", usage + ".", ExitCodes.Usage).ConfigureAwait(false);
            }

            return await RegistryCommandRun.RunAsync("schema download", result, registry, error, async client =>
            {
                IReadOnlyList<string> wanted = matcher is null
                    ? named
                    : (await client.GetSubjectsAsync(cancellationToken).ConfigureAwait(false)).Where(s => matcher.IsMatch(s)).ToList();
                if (wanted.Count == 0)
                {
                    return await RegistryCommandRun.Fail(error, "schema download", "no subject matches " + TerminalText.Neutralize(regex!) + ".", ExitCodes.Usage).ConfigureAwait(false);
                }

                var files = new DownloadedFiles();
                var fetched = new HashSet<string>(StringComparer.Ordinal);
                foreach (string subject in wanted)
                {
                    RegistrySchema schema = chosen is { } v
                        ? await client.GetVersionTextAsync(subject, v, cancellationToken).ConfigureAwait(false)
                        : await client.GetLatestVersionTextAsync(subject, cancellationToken).ConfigureAwait(false);
                    Check(schema, subject);
                    files.AddSubject(subject, schema, From(subject, schema.Version));
                    await AddReferencesAsync(client, schema, files, fetched, cancellationToken).ConfigureAwait(false);
                }

                foreach ((string path, string from) in files.WriteTo(result.GetValue(folder)!))
                {
                    await output.WriteAsync("wrote " + TerminalText.Neutralize(path) + " (" + TerminalText.Neutralize(from) + ")\n").ConfigureAwait(false);
                }

                return ExitCodes.Ok;
            }).ConfigureAwait(false);
        });
        return command;
    }

    /// <summary>Every schema <paramref name="schema"/> references, at its import path, and theirs, each fetched once.</summary>
    private static async Task AddReferencesAsync(
        RegistryClient client, RegistrySchema schema, DownloadedFiles files, HashSet<string> fetched, CancellationToken cancellationToken)
    {
        var pending = new Queue<RegistrySchema>([schema]);
        while (pending.Count > 0)
        {
            foreach (RegistryReference reference in pending.Dequeue().References)
            {
                // One path at two versions is refused by Add when their texts differ.
                if (!fetched.Add(reference.Name + "\n" + reference.Subject + "\n" + reference.Version))
                {
                    continue;
                }

                if (fetched.Count > MaxFiles)
                {
                    throw new InvalidDataException("the schemas reference more than " + MaxFiles + " files");
                }

                RegistrySchema referenced = await client.GetVersionTextAsync(reference.Subject, reference.Version, cancellationToken).ConfigureAwait(false);
                Check(referenced, reference.Subject);
                files.AddImport(reference.Name, referenced, From(reference.Subject, reference.Version));
                pending.Enqueue(referenced);
            }
        }
    }

    private static void Check(RegistrySchema schema, string subject)
    {
        if (schema.SchemaType != "PROTOBUF")
        {
            throw new InvalidDataException(TerminalText.Neutralize(subject) + " holds a " + TerminalText.Neutralize(schema.SchemaType) + " schema, not Protobuf");
        }
    }

    private static string From(string subject, int? version) => subject + " v" + version;
}
