using System;
using System.Collections.Generic;
using System.Collections.Specialized;
using System.Globalization;
using System.Linq;
using System.Text.Json;
using KafkaProtobuf.SchemaRegistry;

namespace KafkaProtobuf.Testing.SchemaRegistry;

/// <summary>The REST API: request paths to store calls, store answers to the real registry's JSON shapes.</summary>
internal static class RegistryRoutes
{
    private static readonly string[] SchemaTypes = ["AVRO", "JSON", "PROTOBUF"];

    internal static (int Status, byte[] Content) Route(RegistryStore store, string method, string[] s, NameValueCollection query, string body)
    {
        bool deleted = Flag(query, "deleted");
        string? format = query["format"];
        switch (method, s.Length)
        {
            case ("GET", 0):
                return Ok(w => { w.WriteStartObject(); w.WriteEndObject(); });

            case ("GET", 2) when s[0] == "schemas" && s[1] == "types":
                return Ok(w => Strings(w, SchemaTypes));

            case ("GET", 3) when s[0] == "schemas" && s[1] == "ids":
            {
                StoredSchema schema = SchemaById(store, s[2]);
                string? subject = query["subject"];
                SubjectVersion? version = string.IsNullOrEmpty(subject) ? null : store.VersionsOf(schema).FirstOrDefault(v => v.Subject.Name == subject);
                return Ok(w => WriteSchema(w, schema, format, version, includeId: false, maxId: Flag(query, "fetchMaxId") ? store.MaxId : null));
            }

            case ("GET", 4) when s[0] == "schemas" && s[1] == "ids" && s[3] == "schema":
                return Raw(SchemaById(store, s[2]).Format(format));

            case ("GET", 4) when s[0] == "schemas" && s[1] == "ids" && s[3] == "subjects":
                return Ok(w => Strings(w, store.VersionsOf(SchemaById(store, s[2])).Select(v => v.Subject.Name).Distinct()));

            case ("GET", 4) when s[0] == "schemas" && s[1] == "ids" && s[3] == "versions":
                return Ok(w =>
                {
                    w.WriteStartArray();
                    foreach (SubjectVersion v in store.VersionsOf(SchemaById(store, s[2])))
                    {
                        w.WriteStartObject();
                        w.WriteString("subject", v.Subject.Name);
                        w.WriteNumber("version", v.Version);
                        w.WriteEndObject();
                    }

                    w.WriteEndArray();
                });

            case ("GET", 3) when s[0] == "schemas" && s[1] == "guids":
            {
                StoredSchema schema = (Guid.TryParse(s[2], out Guid guid) ? store.SchemaByGuid(guid) : null)
                    ?? throw new RegistryError(404, 40403, "Schema " + s[2] + " not found");
                return Ok(w => WriteSchema(w, schema, format, null, includeId: false, maxId: null));
            }

            case ("GET", 1) when s[0] == "subjects":
                return Ok(w => Strings(w, store.SubjectNames(deleted).OrderBy(n => n, StringComparer.Ordinal)));

            case ("POST", 2) when s[0] == "subjects":
            {
                SubjectVersion found = store.Lookup(s[1], ParseRequest(body, query), deleted);
                return Ok(w => WriteSchema(w, found.Schema, format, found, includeId: true, maxId: null));
            }

            case ("DELETE", 2) when s[0] == "subjects":
                return Ok(w => Numbers(w, store.DeleteSubject(s[1], Flag(query, "permanent"))));

            case ("GET", 3) when s[0] == "subjects" && s[2] == "versions":
            {
                Subject subject = store.FindSubject(s[1]) ?? throw RegistryError.SubjectNotFound(s[1]);
                return Ok(w => Numbers(w, subject.Versions.Where(v => deleted || !v.Deleted).Select(v => v.Version)));
            }

            case ("POST", 3) when s[0] == "subjects" && s[2] == "versions":
            {
                SubjectVersion registered = store.Register(s[1], ParseRequest(body, query));
                return Ok(w =>
                {
                    // RegisterSchemaResponse: no subject.
                    StoredSchema schema = registered.Schema;
                    w.WriteStartObject();
                    w.WriteNumber("id", schema.Id);
                    w.WriteNumber("version", registered.Version);
                    w.WriteString("guid", schema.Guid.ToString("D"));
                    WriteBody(w, schema, format);
                    w.WriteEndObject();
                });
            }

            case ("GET", 4) when s[0] == "subjects" && s[2] == "versions":
            {
                SubjectVersion version = store.Version(s[1], s[3], deleted);
                return Ok(w => WriteSchema(w, version.Schema, format, version, includeId: true, maxId: null));
            }

            case ("DELETE", 4) when s[0] == "subjects" && s[2] == "versions":
                return Ok(w => w.WriteNumberValue(store.DeleteVersion(s[1], s[3], Flag(query, "permanent"))));

            case ("GET", 5) when s[0] == "subjects" && s[2] == "versions" && s[4] == "schema":
                return Raw(store.Version(s[1], s[3], deleted).Schema.Format(format));

            case ("GET", 5) when s[0] == "subjects" && s[2] == "versions" && s[4] == "referencedby":
                return Ok(w => Numbers(w, store.ReferencedBy(store.Version(s[1], s[3], includeDeleted: true))));

            case ("POST", 4 or 5) when s[0] == "compatibility" && s[1] == "subjects" && s[3] == "versions":
            {
                bool verbose = Flag(query, "verbose");
                List<string> messages = store.CheckCompatibility(s[2], s.Length == 5 ? s[4] : null, ParseRequest(body, query), verbose);
                return Ok(w =>
                {
                    w.WriteStartObject();
                    w.WriteBoolean("is_compatible", messages.Count == 0);
                    if (verbose)
                    {
                        Strings(w, messages, "messages");
                    }

                    w.WriteEndObject();
                });
            }

            case ("GET", 1) when s[0] == "config":
                return Ok(w => Config(w, "compatibilityLevel", store.GlobalCompatibility));

            case ("PUT", 1) when s[0] == "config":
                store.GlobalCompatibility = ParseCompatibility(body);
                return Ok(w => Config(w, "compatibility", store.GlobalCompatibility));

            case ("GET", 2) when s[0] == "config":
            {
                string? level = store.SubjectCompatibility(s[1]) ?? (Flag(query, "defaultToGlobal") ? store.GlobalCompatibility : null);
                return level is null
                    ? throw new RegistryError(404, 40408, "Subject '" + s[1] + "' does not have subject-level compatibility configured")
                    : Ok(w => Config(w, "compatibilityLevel", level));
            }

            case ("PUT", 2) when s[0] == "config":
            {
                string level = ParseCompatibility(body);
                store.SetSubjectCompatibility(s[1], level);
                return Ok(w => Config(w, "compatibility", level));
            }

            case ("DELETE", 2) when s[0] == "config":
            {
                string? previous = store.SubjectCompatibility(s[1]);
                return store.RemoveSubjectCompatibility(s[1])
                    ? Ok(w => Config(w, "compatibilityLevel", previous!))
                    : throw RegistryError.SubjectNotFound(s[1]);
            }

            case ("GET", 1 or 2) when s[0] == "mode":
                return Ok(w => Config(w, "mode", "READWRITE"));

            case ("PUT", 1 or 2) when s[0] == "mode":
            {
                using JsonDocument document = JsonDocument.Parse(body);
                string mode = document.RootElement.GetProperty("mode").GetString() ?? "READWRITE";
                return Ok(w => Config(w, "mode", mode));
            }

            case ("GET", 1) when s[0] == "contexts":
                return Ok(w => Strings(w, ["."]));

            case ("GET", 3 or 4) when s[0] == "associations" && s[1] == "resources":
                return Ok(w => Strings(w, [])); // no associations: serializers fall back to their subject strategy

            case ("GET", 3) when s[0] == "v1" && s[1] == "metadata" && s[2] == "id":
                return Ok(w =>
                {
                    w.WriteStartObject();
                    w.WriteStartObject("scope");
                    w.WriteStartArray("path");
                    w.WriteEndArray();
                    w.WriteStartObject("clusters");
                    w.WriteString("schema-registry-cluster", "in-process");
                    w.WriteEndObject();
                    w.WriteEndObject();
                    w.WriteEndObject();
                });

            default:
                throw new RegistryError(404, 404, "HTTP 404 Not Found");
        }
    }

    private static StoredSchema SchemaById(RegistryStore store, string id) =>
        (int.TryParse(id, NumberStyles.None, CultureInfo.InvariantCulture, out int number) ? store.SchemaById(number) : null)
        ?? throw new RegistryError(404, 40403, "Schema " + id + " not found");

    /// <summary>The registry's Schema / SchemaString shape (empty fields left out, as its NON_EMPTY JSON does).</summary>
    private static void WriteSchema(Utf8JsonWriter w, StoredSchema schema, string? format, SubjectVersion? version, bool includeId, int? maxId)
    {
        w.WriteStartObject();
        if (version is not null)
        {
            w.WriteString("subject", version.Subject.Name);
            w.WriteNumber("version", version.Version);
        }

        if (includeId)
        {
            w.WriteNumber("id", schema.Id);
        }

        w.WriteString("guid", schema.Guid.ToString("D"));
        WriteBody(w, schema, format);
        if (maxId is not null)
        {
            w.WriteNumber("maxId", maxId.Value);
        }

        w.WriteEndObject();
    }

    private static void WriteBody(Utf8JsonWriter w, StoredSchema schema, string? format)
    {
        if (schema.SchemaType != "AVRO")
        {
            w.WriteString("schemaType", schema.SchemaType);
        }

        w.WriteString("schema", schema.Format(format));
        if (schema.References.Count > 0)
        {
            w.WriteStartArray("references");
            foreach (Reference reference in schema.References)
            {
                w.WriteStartObject();
                w.WriteString("name", reference.Name);
                w.WriteString("subject", reference.Subject);
                w.WriteNumber("version", reference.Version);
                w.WriteEndObject();
            }

            w.WriteEndArray();
        }
    }

    private static RegistrationRequest ParseRequest(string body, NameValueCollection query)
    {
        using JsonDocument document = JsonDocument.Parse(body);
        JsonElement root = document.RootElement;
        string schema = root.TryGetProperty("schema", out JsonElement text) && text.ValueKind == JsonValueKind.String
            ? text.GetString()!
            : throw new RegistryError(422, 42201, "Invalid schema: the request has no \"schema\"");
        string schemaType = root.TryGetProperty("schemaType", out JsonElement type) && type.ValueKind == JsonValueKind.String ? type.GetString()! : "AVRO";
        if (!SchemaTypes.Contains(schemaType))
        {
            throw new RegistryError(422, 42201, "Invalid schema type " + schemaType);
        }

        var references = new List<Reference>();
        if (root.TryGetProperty("references", out JsonElement list) && list.ValueKind == JsonValueKind.Array)
        {
            foreach (JsonElement item in list.EnumerateArray())
            {
                references.Add(new Reference(
                    item.GetProperty("name").GetString()!,
                    item.GetProperty("subject").GetString()!,
                    item.GetProperty("version").GetInt32()));
            }
        }

        return new RegistrationRequest(schemaType, schema, references, Flag(query, "normalize"));
    }

    private static string ParseCompatibility(string body)
    {
        using JsonDocument document = JsonDocument.Parse(body);
        string? name = document.RootElement.TryGetProperty("compatibility", out JsonElement value) ? value.GetString() : null;
        return CompatibilityLevelNames.TryParse(name, out CompatibilityLevel level)
            ? CompatibilityLevelNames.Of(level)
            : throw new RegistryError(422, 42203, "Invalid compatibility level. Valid values are none, backward, forward, full, backward_transitive, forward_transitive, and full_transitive");
    }

    private static bool Flag(NameValueCollection query, string name) => string.Equals(query[name], "true", StringComparison.OrdinalIgnoreCase);

    private static void Config(Utf8JsonWriter w, string name, string value)
    {
        w.WriteStartObject();
        w.WriteString(name, value);
        w.WriteEndObject();
    }

    private static void Strings(Utf8JsonWriter w, IEnumerable<string> values, string? name = null)
    {
        if (name is null)
        {
            w.WriteStartArray();
        }
        else
        {
            w.WriteStartArray(name);
        }

        foreach (string value in values)
        {
            w.WriteStringValue(value);
        }

        w.WriteEndArray();
    }

    private static void Numbers(Utf8JsonWriter w, IEnumerable<int> values)
    {
        w.WriteStartArray();
        foreach (int value in values)
        {
            w.WriteNumberValue(value);
        }

        w.WriteEndArray();
    }

    private static (int, byte[]) Ok(Action<Utf8JsonWriter> write) => (200, RegistryJson.Write(write));

    private static (int, byte[]) Raw(string text) => (200, System.Text.Encoding.UTF8.GetBytes(text));
}

/// <summary>JSON written without reflection, so the registry stays trim- and AOT-safe.</summary>
internal static class RegistryJson
{
    internal static byte[] Write(Action<Utf8JsonWriter> write)
    {
        using var buffer = new System.IO.MemoryStream();
        using (var writer = new Utf8JsonWriter(buffer))
        {
            write(writer);
        }

        return buffer.ToArray();
    }
}
