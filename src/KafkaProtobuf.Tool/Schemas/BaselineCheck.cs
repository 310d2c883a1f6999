using System;
using System.Collections.Generic;
using System.Linq;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;

namespace KafkaProtobuf.Tool.Schemas;

/// <summary>
/// Checks each subject's current file against the versions it is checked against (a baseline's, or a registry's) at
/// its level, with the registry's rules (<see cref="ProtobufCompatibility"/>): every incompatible difference with
/// where it is, suppressed ones marked.
/// </summary>
internal static class BaselineCheck
{
    /// <param name="subject">The subject.</param>
    /// <param name="file">Its file's import path.</param>
    /// <param name="current">The current file with its imports (source positions used when present), or null when it is gone.</param>
    /// <param name="earlier">The versions checked against, oldest first.</param>
    /// <param name="level">The level.</param>
    /// <param name="suppressions">Accepted breaks.</param>
    /// <param name="locate">The path on disk of a file by its import path, or null.</param>
    public static List<BaselineFinding> Check(
        string subject,
        string file,
        FileDescriptorSet? current,
        IReadOnlyList<ProtoSchema> earlier,
        CompatibilityLevel level,
        SchemaSuppressions suppressions,
        Func<string, string?> locate)
    {
        var findings = new List<BaselineFinding>();
        if (current is null || current.File.All(f => f.Name != file))
        {
            findings.Add(new BaselineFinding(
                BaselineFinding.FileMissing, subject, level, null,
                subject + "'s file " + file + " is not among the .proto files checked: a schema removed from the code breaks its readers",
                locate(file) ?? file, 0, 0, false));
            return findings;
        }

        CompatibilityVerdict verdict = ProtobufCompatibility.Check(ProtoSchema.Of(current, file), earlier, level);
        foreach (SchemaComparison comparison in verdict.Comparisons)
        {
            foreach (SchemaDifference difference in comparison.Differences.Where(d => !d.IsCompatible))
            {
                string code = BaselineFinding.CodeOf(difference.Kind);
                if (findings.Any(f => f.Code == code && f.Path == difference.Path))
                {
                    continue; // one finding per difference, however many versions show it
                }

                (string File, int Line, int Column)? where = SourcePositions.Find(current, file, difference.Path);
                string name = where?.File ?? file;
                findings.Add(new BaselineFinding(
                    code,
                    subject,
                    level,
                    difference.Path,
                    difference.Code + " " + difference.Path + ": " + difference.Description + " (" + subject + " at "
                        + CompatibilityLevelNames.Of(level) + ", against version " + (comparison.EarlierVersion + 1) + ")",
                    locate(name) ?? name,
                    where?.Line ?? 0,
                    where?.Column ?? 0,
                    suppressions.Suppresses(code, subject, difference.Path)));
            }
        }

        return findings;
    }
}
