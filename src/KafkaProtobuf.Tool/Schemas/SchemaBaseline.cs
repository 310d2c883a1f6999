using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Tool.Output;

namespace KafkaProtobuf.Tool.Schemas;

/// <summary>
/// A committed baseline of schemas: a folder with one JSON file per subject (its name the subject, URL-escaped), each
/// holding the subject, its file's import path, its level and its versions as descriptor sets in Protobuf's JSON form
/// (imports included), so a check needs neither the network nor the old .proto files, and a change to the baseline
/// reads as a diff in review.
/// </summary>
internal static class SchemaBaseline
{
    private const string Extension = ".json";

    /// <summary>The entries of a baseline folder, by subject; none when the folder does not exist.</summary>
    /// <exception cref="InvalidDataException">A file of the folder is not a baseline entry.</exception>
    public static List<BaselineEntry> Read(string folder)
    {
        var entries = new List<BaselineEntry>();
        if (!Directory.Exists(folder))
        {
            return entries;
        }

        foreach (string path in Directory.EnumerateFiles(folder, "*" + Extension).Order(StringComparer.Ordinal))
        {
            try
            {
                entries.Add(ReadEntry(File.ReadAllBytes(path)));
            }
            catch (Exception e) when (e is JsonException or InvalidJsonException or InvalidProtocolBufferException or InvalidOperationException or KeyNotFoundException or FormatException)
            {
                throw new InvalidDataException(path + " is not a schema baseline entry: " + e.Message, e);
            }
        }

        return entries;
    }

    /// <summary>Writes each entry to its file in the folder (created if missing).</summary>
    public static void Write(string folder, IEnumerable<BaselineEntry> entries)
    {
        Directory.CreateDirectory(folder);
        foreach (BaselineEntry entry in entries)
        {
            File.WriteAllBytes(Path.Combine(folder, FileNameOf(entry.Subject)), Serialize(entry));
        }
    }

    /// <summary>A subject's file name in the folder: the subject URL-escaped (a subject may hold '/'), then .json.</summary>
    public static string FileNameOf(string subject) => Uri.EscapeDataString(subject) + Extension;

    private static BaselineEntry ReadEntry(byte[] json)
    {
        using JsonDocument document = JsonDocument.Parse(json);
        JsonElement root = document.RootElement;
        if (root.GetProperty(JsonFormat.FieldName).GetInt32() != JsonFormat.Version)
        {
            throw new FormatException("its format is " + root.GetProperty(JsonFormat.FieldName).GetInt32() + "; this tool reads " + JsonFormat.Version);
        }

        string levelName = root.GetProperty("level").GetString() ?? string.Empty;
        if (!CompatibilityLevelNames.TryParse(levelName, out CompatibilityLevel level))
        {
            throw new FormatException("'" + BoundedText.Cut(levelName, 100) + "' is not a compatibility level");
        }

        var versions = root.GetProperty("versions").EnumerateArray()
            .Select(v => JsonParser.Default.Parse<FileDescriptorSet>(v.GetProperty("files").GetRawText()))
            .ToList();
        return new BaselineEntry(
            root.GetProperty("subject").GetString() ?? throw new FormatException("it names no subject"),
            root.GetProperty("file").GetString() ?? throw new FormatException("it names no file"),
            level,
            versions);
    }

    private static byte[] Serialize(BaselineEntry entry)
    {
        var formatter = new JsonFormatter(JsonFormatter.Settings.Default);
        using var buffer = new MemoryStream();
        using (var writer = new Utf8JsonWriter(buffer, JsonFormat.Indented))
        {
            JsonFormat.WriteStartObject(writer);
            writer.WriteString("subject", entry.Subject);
            writer.WriteString("file", entry.File);
            writer.WriteString("level", CompatibilityLevelNames.Of(entry.Level));
            writer.WriteStartArray("versions");
            foreach (FileDescriptorSet version in entry.Versions)
            {
                writer.WriteStartObject();
                writer.WritePropertyName("files");
                using JsonDocument files = JsonDocument.Parse(formatter.Format(version)); // indented as the rest: a change reads as a diff
                files.RootElement.WriteTo(writer);
                writer.WriteEndObject();
            }

            writer.WriteEndArray();
            writer.WriteEndObject();
        }

        buffer.WriteByte((byte)'\n');
        return buffer.ToArray();
    }
}
