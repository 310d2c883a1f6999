using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using Confluent.Kafka;

namespace KafkaProtobuf.Wolverine.Tests.Support;

/// <summary>A value frame written by Confluent's .NET ProtobufSerializer 2.15.0 (KafkaProtobuf.Tests/Vectors/README.md).</summary>
public sealed record ValueVector(string Name, string Type, byte[] Data, IReadOnlyList<KeyValuePair<string, byte[]>> Headers, byte[] Payload)
{
    private static readonly Lazy<IReadOnlyList<ValueVector>> Loaded = new(Load);

    /// <summary>Every value frame: each type of telemetry.proto, the schema id in the prefix and in a header (a GUID).</summary>
    public static IReadOnlyList<ValueVector> All => Loaded.Value;

    public Headers KafkaHeaders()
    {
        var headers = new Headers();
        foreach (KeyValuePair<string, byte[]> header in Headers)
        {
            headers.Add(header.Key, header.Value);
        }

        return headers;
    }

    public override string ToString() => Name;

    private static List<ValueVector> Load()
    {
        string path = Path.Combine(AppContext.BaseDirectory, "Vectors", "confluent-dotnet-2.15.0.jsonl");
        var vectors = new List<ValueVector>();
        foreach (string line in File.ReadLines(path).Where(l => l.Length > 0))
        {
            using JsonDocument document = JsonDocument.Parse(line);
            JsonElement o = document.RootElement;
            if (o.GetProperty("component").GetString() != "value")
            {
                continue;
            }

            vectors.Add(new ValueVector(
                o.GetProperty("name").GetString()!,
                o.GetProperty("type").GetString()!,
                Convert.FromHexString(o.GetProperty("data_hex").GetString()!),
                o.GetProperty("headers").EnumerateArray()
                    .Select(h => new KeyValuePair<string, byte[]>(h[0].GetString()!, Convert.FromHexString(h[1].GetString()!)))
                    .ToList(),
                Convert.FromHexString(o.GetProperty("payload_hex").GetString()!)));
        }

        return vectors;
    }
}
