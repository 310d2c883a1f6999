using System.Text.Encodings.Web;
using System.Text.Json;

namespace KafkaProtobuf.Tool.Output;

/// <summary>
/// The version of the JSON the tool prints, the first field of every object it writes at the top level (a record, an
/// unreadable record, a compatibility verdict, a group's lag): scripts check it before reading on. Adding a field keeps
/// it; removing, renaming or changing the meaning of one raises it (docs/versioning.md).
/// </summary>
internal static class JsonFormat
{
    /// <summary>The name of the field.</summary>
    public const string FieldName = "format";

    /// <summary>The version this build writes.</summary>
    public const int Version = 1;

    /// <summary>The tool's JSON: readable text (no escaping of non-ASCII), one line.</summary>
    public static readonly JsonWriterOptions Compact = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    /// <summary>Like <see cref="Compact"/>, indented.</summary>
    public static readonly JsonWriterOptions Indented = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping, Indented = true };

    /// <summary>Starts a top-level object with its format field.</summary>
    public static void WriteStartObject(Utf8JsonWriter writer)
    {
        writer.WriteStartObject();
        writer.WriteNumber(FieldName, Version);
    }
}
