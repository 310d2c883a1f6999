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
    public List<ReferenceJson?>? References { get; set; }
}

internal sealed class ReferenceJson
{
    [JsonPropertyName("name")]
    public string? Name { get; set; } = string.Empty;

    [JsonPropertyName("subject")]
    public string? Subject { get; set; } = string.Empty;

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

    [JsonPropertyName("messages")]
    public List<string?>? Messages { get; set; }
}

/// <summary><c>GET /config/{subject}</c>: the subject's (or with <c>defaultToGlobal</c>, the global) level.</summary>
internal sealed class ConfigJson
{
    [JsonPropertyName("compatibilityLevel")]
    public string? CompatibilityLevel { get; set; }
}

/// <summary><c>PUT /config</c> and <c>PUT /config/{subject}</c>: the level asked for, and the registry's answer.</summary>
internal sealed class ConfigUpdateJson
{
    [JsonPropertyName("compatibility")]
    public string? Compatibility { get; set; }
}

/// <summary>An OAuth token endpoint's answer (RFC 6749 5.1 and 5.2); some endpoints send <c>expires_in</c> as a string.</summary>
internal sealed class TokenJson
{
    [JsonPropertyName("access_token")]
    public string? AccessToken { get; set; }

    [JsonPropertyName("expires_in")]
    [JsonNumberHandling(JsonNumberHandling.AllowReadingFromString)]
    public double? ExpiresIn { get; set; }

    [JsonPropertyName("error")]
    public string? Error { get; set; }

    [JsonPropertyName("error_description")]
    public string? ErrorDescription { get; set; }
}

/// <summary>Source-generated serialization: no reflection, so trimming and native AOT keep working.</summary>
[JsonSourceGenerationOptions(DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(SchemaJson))]
[JsonSerializable(typeof(SchemaRequestJson))]
[JsonSerializable(typeof(ErrorJson))]
[JsonSerializable(typeof(CompatibilityJson))]
[JsonSerializable(typeof(ConfigJson))]
[JsonSerializable(typeof(ConfigUpdateJson))]
[JsonSerializable(typeof(TokenJson))]
[JsonSerializable(typeof(List<int>))]
[JsonSerializable(typeof(List<string>))]
internal sealed partial class RegistryJsonContext : JsonSerializerContext
{
}
