using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using Confluent.Kafka;
using Xunit;

namespace KafkaProtobuf.Tests.Support;

/// <summary>
/// One frame written by Confluent's .NET ProtobufSerializer (Vectors/README.md): 2.15.0 for telemetry.proto
/// (<see cref="ByName"/>), 2.11.0 and 2.11.1 for nesting.proto (<see cref="Nesting"/>), where 2.11.0 wrote nested types'
/// paths innermost first.
/// </summary>
public sealed record ConfluentVector(
    string Name,
    MessageComponentType Component,
    string Type,
    int[] IndexPath,
    int? SchemaId,
    Guid? SchemaGuid,
    byte[] Data,
    IReadOnlyList<KeyValuePair<string, byte[]>> Headers,
    byte[] Payload)
{
    private static readonly Lazy<IReadOnlyDictionary<string, ConfluentVector>> All = new(() => Load("confluent-dotnet-2.15.0.jsonl", "telemetry"));

    private static readonly Lazy<IReadOnlyDictionary<string, ConfluentVector>> Nesting2110 = new(() => Load("confluent-dotnet-2.11.0-nesting.jsonl", "nesting"));

    private static readonly Lazy<IReadOnlyDictionary<string, ConfluentVector>> Nesting2111 = new(() => Load("confluent-dotnet-2.11.1-nesting.jsonl", "nesting"));

    /// <summary>The 2.15.0 frames of telemetry.proto.</summary>
    public static IReadOnlyDictionary<string, ConfluentVector> ByName => All.Value;

    /// <summary>The frames of nesting.proto written by <paramref name="version"/> ("2.11.0" or "2.11.1").</summary>
    public static IReadOnlyDictionary<string, ConfluentVector> Nesting(string version) => version switch
    {
        "2.11.0" => Nesting2110.Value,
        "2.11.1" => Nesting2111.Value,
        _ => throw new ArgumentOutOfRangeException(nameof(version), version, "2.11.0 or 2.11.1"),
    };

    /// <summary>The topic the frames were written for (the serializer's subject is topic-value or topic-key).</summary>
    public string Topic { get; init; } = "telemetry";

    /// <summary>Vector names as xunit theory data (names keep the test list readable).</summary>
    public static TheoryData<string> Names()
    {
        var data = new TheoryData<string>();
        foreach (string name in ByName.Keys)
        {
            data.Add(name);
        }

        return data;
    }

    public SchemaIdentifier Identifier => SchemaGuid is { } guid ? SchemaIdentifier.FromGuid(guid) : SchemaIdentifier.FromId(SchemaId!.Value);

    public SchemaIdPlacement Placement => Headers.Count > 0 ? SchemaIdPlacement.Header : SchemaIdPlacement.Prefix;

    public Headers KafkaHeaders()
    {
        var headers = new Headers();
        foreach (KeyValuePair<string, byte[]> header in Headers)
        {
            headers.Add(header.Key, header.Value);
        }

        return headers;
    }

    public SerializationContext Context() => new(Component, Topic, KafkaHeaders());

    public override string ToString() => Name;

    private static Dictionary<string, ConfluentVector> Load(string fileName, string topic)
    {
        string path = Path.Combine(AppContext.BaseDirectory, "Vectors", fileName);
        var result = new Dictionary<string, ConfluentVector>();
        foreach (string line in File.ReadLines(path).Where(l => l.Length > 0))
        {
            using JsonDocument document = JsonDocument.Parse(line);
            JsonElement o = document.RootElement;
            var vector = new ConfluentVector(
                o.GetProperty("name").GetString()!,
                o.GetProperty("component").GetString() == "key" ? MessageComponentType.Key : MessageComponentType.Value,
                o.GetProperty("type").GetString()!,
                o.GetProperty("index_path").EnumerateArray().Select(e => e.GetInt32()).ToArray(),
                o.GetProperty("schema_id").ValueKind == JsonValueKind.Null ? null : o.GetProperty("schema_id").GetInt32(),
                o.GetProperty("schema_guid").ValueKind == JsonValueKind.Null ? null : Guid.Parse(o.GetProperty("schema_guid").GetString()!),
                Convert.FromHexString(o.GetProperty("data_hex").GetString()!),
                o.GetProperty("headers").EnumerateArray()
                    .Select(h => new KeyValuePair<string, byte[]>(h[0].GetString()!, Convert.FromHexString(h[1].GetString()!)))
                    .ToList(),
                Convert.FromHexString(o.GetProperty("payload_hex").GetString()!))
            {
                Topic = topic,
            };
            result.Add(vector.Name, vector);
        }

        return result;
    }
}
