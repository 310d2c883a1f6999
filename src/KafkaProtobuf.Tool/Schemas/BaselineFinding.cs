using KafkaProtobuf.SchemaRegistry;

namespace KafkaProtobuf.Tool.Schemas;

/// <summary>
/// What a baseline check reports: an incompatible difference of a subject's new schema (its diagnostic id, path and
/// where it is in the .proto file, when known), or a subject whose file is gone.
/// </summary>
/// <param name="Code">The diagnostic id: <c>KPS1000</c> plus the difference's kind, or <see cref="FileMissing"/>.</param>
/// <param name="Subject">The subject.</param>
/// <param name="Level">The level it was checked at.</param>
/// <param name="Path">The difference's path (<c>#/Order/2</c>); null for a missing file.</param>
/// <param name="Message">What is wrong, in words.</param>
/// <param name="File">The .proto file (a path on disk when found below an import root, else its import path).</param>
/// <param name="Line">Its line from 1, or 0 when unknown.</param>
/// <param name="Column">Its column from 1, or 0 when unknown.</param>
/// <param name="Suppressed">Whether a suppression accepts it.</param>
internal sealed record BaselineFinding(
    string Code, string Subject, CompatibilityLevel Level, string? Path, string Message, string File, int Line, int Column, bool Suppressed)
{
    /// <summary>A subject's file is not among the files checked: the schema would be gone.</summary>
    public const string FileMissing = "KPS0001";

    /// <summary>The diagnostic id of a difference's kind: stable, as the kinds' numbers are.</summary>
    public static string CodeOf(SchemaDifferenceKind kind) => "KPS" + (1000 + (int)kind).ToString(System.Globalization.CultureInfo.InvariantCulture);
}
