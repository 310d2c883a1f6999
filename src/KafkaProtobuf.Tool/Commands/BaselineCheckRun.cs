using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Tool.Output;
using KafkaProtobuf.Tool.Schemas;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>
/// <c>schema check --baseline DIR</c>: every subject of a committed baseline, its current file (from protoc descriptor
/// sets, whose source positions say where each change is, or compiled from the import roots) checked at its level
/// against the baseline's versions, or with <c>--registry</c> against the registry's. Findings as text, JSON, or
/// <c>msvs</c> lines (<c>file(line,col): error KPS1012: …</c>) that Visual Studio, VS Code, MSBuild and CI logs make
/// clickable, as <c>buf breaking --error-format msvs</c> does.
/// </summary>
internal sealed class BaselineCheckRun
{
    public required string Baseline { get; init; }

    public required IReadOnlyList<string> DescriptorSets { get; init; }

    public required IReadOnlyList<string> ImportRoots { get; init; }

    public required string Format { get; init; }

    public required bool WarnOnly { get; init; }

    public required string? SuppressionsFile { get; init; }

    public required bool WriteSuppressions { get; init; }

    public CompatibilityLevel? Level { get; init; }

    /// <summary>Runs the check: the exit code.</summary>
    /// <exception cref="InvalidDataException">The baseline, a descriptor set or the suppressions cannot be read.</exception>
    public async Task<int> RunAsync(RegistryClient? registry, TextWriter output, CancellationToken cancellationToken)
    {
        List<BaselineEntry> entries = SchemaBaseline.Read(Baseline);
        if (entries.Count == 0)
        {
            throw new InvalidDataException("the baseline " + Baseline + " holds no subject: write one with 'kafka-protobuf schema baseline write'");
        }

        FileDescriptorSet? given = DescriptorSets.Count == 0 ? null : ProtoFiles.ReadDescriptorSets(DescriptorSets);
        SchemaSuppressions suppressions = SuppressionsFile is null || WriteSuppressions ? SchemaSuppressions.None : SchemaSuppressions.Read(SuppressionsFile);
        var findings = new List<BaselineFinding>();
        foreach (BaselineEntry entry in entries.OrderBy(e => e.Subject, StringComparer.Ordinal))
        {
            FileDescriptorSet? current = given ?? ProtoFiles.CompileByName(entry.File, ImportRoots);
            IReadOnlyList<ProtoSchema> earlier;
            CompatibilityLevel level = Level ?? entry.Level;
            if (registry is null)
            {
                earlier = entry.Versions.Select(ProtoSchema.Of).ToList(); // each version's file is last in its set (a moved file keeps its history)
            }
            else
            {
                SubjectHistory history = await SubjectHistory.ReadAsync(registry, entry.Subject, cancellationToken).ConfigureAwait(false);
                earlier = history.Versions;
                level = Level ?? history.Level;
            }

            findings.AddRange(BaselineCheck.Check(entry.Subject, entry.File, current, earlier, level, suppressions, name => ProtoFiles.Locate(name, ImportRoots)));
        }

        if (WriteSuppressions)
        {
            // A file that is gone cannot be accepted: it stays a finding, and the check still fails.
            int written = SchemaSuppressions.Write(SuppressionsFile!, findings);
            await output.WriteAsync("wrote " + written + " suppression" + (written == 1 ? string.Empty : "s") + " to " + SuppressionsFile + "\n").ConfigureAwait(false);
            findings.RemoveAll(f => f.Path is not null);
            if (findings.Count == 0)
            {
                return ExitCodes.Ok;
            }
        }

        await output.WriteAsync(Format switch
        {
            "json" => Json(findings, entries.Count),
            "msvs" => Msvs(findings, WarnOnly),
            _ => Text(findings, entries.Count),
        }).ConfigureAwait(false);
        return findings.Any(f => !f.Suppressed) && !WarnOnly ? SchemaCommand.Incompatible : ExitCodes.Ok;
    }

    private static string Msvs(List<BaselineFinding> findings, bool warnOnly)
    {
        var text = new StringBuilder();
        foreach (BaselineFinding finding in findings.Where(f => !f.Suppressed))
        {
            text.Append(TerminalText.Neutralize(finding.File));
            if (finding.Line > 0)
            {
                text.Append('(').Append(finding.Line).Append(',').Append(finding.Column).Append(')');
            }

            text.Append(": ").Append(warnOnly ? "warning " : "error ").Append(finding.Code).Append(": ")
                .Append(TerminalText.Neutralize(finding.Message)).Append('\n');
        }

        return text.ToString();
    }

    private static string Text(List<BaselineFinding> findings, int subjects)
    {
        var text = new StringBuilder();
        foreach (BaselineFinding finding in findings)
        {
            text.Append(finding.Suppressed ? "  suppressed   " : "  INCOMPATIBLE ").Append(finding.Code).Append(' ')
                .Append(TerminalText.Neutralize(finding.File));
            if (finding.Line > 0)
            {
                text.Append(':').Append(finding.Line).Append(':').Append(finding.Column);
            }

            text.Append(": ").Append(TerminalText.Neutralize(finding.Message)).Append('\n');
        }

        int incompatible = findings.Count(f => !f.Suppressed);
        text.Append(incompatible == 0
            ? "Compatible: " + subjects + (subjects == 1 ? " subject" : " subjects") + " checked.\n"
            : "Not compatible: " + incompatible + (incompatible == 1 ? " incompatible change" : " incompatible changes") + " in " + subjects + (subjects == 1 ? " subject" : " subjects") + " checked.\n");
        return text.ToString();
    }

    private static string Json(List<BaselineFinding> findings, int subjects)
    {
        using var buffer = new MemoryStream();
        using (var writer = new Utf8JsonWriter(buffer, JsonFormat.Compact))
        {
            JsonFormat.WriteStartObject(writer);
            writer.WriteBoolean("compatible", findings.All(f => f.Suppressed));
            writer.WriteNumber("subjects", subjects);
            writer.WriteStartArray("findings");
            foreach (BaselineFinding finding in findings)
            {
                writer.WriteStartObject();
                writer.WriteString("code", finding.Code);
                writer.WriteString("subject", finding.Subject);
                writer.WriteString("level", CompatibilityLevelNames.Of(finding.Level));
                if (finding.Path is not null)
                {
                    writer.WriteString("path", finding.Path);
                }

                writer.WriteString("file", finding.File);
                if (finding.Line > 0)
                {
                    writer.WriteNumber("line", finding.Line);
                    writer.WriteNumber("column", finding.Column);
                }

                writer.WriteBoolean("suppressed", finding.Suppressed);
                writer.WriteString("message", finding.Message);
                writer.WriteEndObject();
            }

            writer.WriteEndArray();
            writer.WriteEndObject();
        }

        return TerminalText.EscapeBidi(Encoding.UTF8.GetString(buffer.ToArray())) + "\n";
    }
}
