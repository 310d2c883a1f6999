using System.Collections.Generic;
using System.Text.Json.Serialization;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>The registry's JSON shapes (Schema, SchemaString, RegisterSchemaResponse share one: absent fields stay null).</summary>
internal sealed class SchemaJson
{
    [JsonPropertyName("subject")]
    public string? Subject { get; set; }

    [JsonPropertyName("version")]
    public int? Version { get; set; }

    [JsonPropertyName("id")]
    public int? Id { get; set; }

    [JsonPropertyName("guid")]
    public string? Guid { get; set; }

    [JsonPropertyName("schemaType")]
    public string? SchemaType { get; set; }

    [JsonPropertyName("schema")]
    public string? Schema { get; set; }

    [JsonPropertyName("references")]
    public List<ReferenceJson>? References { get; set; }
}

internal sealed class ReferenceJson
{
    [JsonPropertyName("name")]
    public string Name { get; set; } = string.Empty;

    [JsonPropertyName("subject")]
    public string Subject { get; set; } = string.Empty;

    [JsonPropertyName("version")]
    public int Version { get; set; }
}

/// <summary>What a register, lookup or compatibility request carries: the schema, its type and references.</summary>
internal sealed class SchemaRequestJson
{
    [JsonPropertyName("schema")]
    public string Schema { get; set; } = string.Empty;

    [JsonPropertyName("schemaType")]
    public string? SchemaType { get; set; }

    [JsonPropertyName("references")]
    public List<ReferenceJson>? References { get; set; }
}

internal sealed class ErrorJson
{
    [JsonPropertyName("error_code")]
    public int ErrorCode { get; set; }

    [JsonPropertyName("message")]
    public string? Message { get; set; }
}

internal sealed class CompatibilityJson
{
    [JsonPropertyName("is_compatible")]
    public bool IsCompatible { get; set; }
}

/// <summary>Source-generated serialization: no reflection, so trimming and native AOT keep working.</summary>
[JsonSourceGenerationOptions(DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(SchemaJson))]
[JsonSerializable(typeof(SchemaRequestJson))]
[JsonSerializable(typeof(ErrorJson))]
[JsonSerializable(typeof(CompatibilityJson))]
[JsonSerializable(typeof(List<int>))]
[JsonSerializable(typeof(List<string>))]
internal sealed partial class RegistryJsonContext : JsonSerializerContext
{
}
