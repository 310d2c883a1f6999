// AFL++ harness (SharpFuzz): dotnet KafkaProtobuf.Fuzz.dll <reader|typed|multi|tool|registry>, input on stdin or a file path.
// dotnet KafkaProtobuf.Fuzz.dll seeds <dir> writes the seed corpus (the Confluent vectors, in the harness's format);
// dotnet KafkaProtobuf.Fuzz.dll replay <target> <file>... checks saved inputs without AFL (uninstrumented build).
// See fuzz/run.sh.
using System;
using System.IO;
using System.Linq;
using System.Text.Json;
using KafkaProtobuf.Fuzz;
using SharpFuzz;

if (args.Length >= 2 && args[0] == "seeds")
{
    if (args.Length >= 3 && args[2] == "registry")
    {
        WriteRegistrySeeds(args[1]);
    }
    else
    {
        WriteSeeds(args[1]);
    }

    return 0;
}

// Replays inputs outside AFL, from the uninstrumented build: dotnet KafkaProtobuf.Fuzz.dll replay <target> <file>...
if (args.Length >= 3 && args[0] == "replay")
{
    foreach (string file in args.Skip(2))
    {
        Console.WriteLine(file);
        Check(args[1], File.ReadAllBytes(file));
    }

    return 0;
}

string target = args.Length > 0 ? args[0] : throw new ArgumentException("usage: <reader|typed|multi|tool|registry> | seeds <dir> [target]");

// No instrumented code (the harness's statics included) may run before SharpFuzz has set up AFL's shared memory.
if (!new[] { "reader", "typed", "multi", "tool", "registry" }.Contains(target))
{
    throw new ArgumentException("Unknown target " + target);
}

Fuzzer.OutOfProcess.Run(stream =>
{
    using var buffer = new MemoryStream();
    stream.CopyTo(buffer);
    Check(target, buffer.ToArray());
});
return 0;

static void Check(string target, byte[] input)
{
    switch (target)
    {
        case "tool":
            ToolHarness.Check(input);
            break;
        case "registry":
            RegistryAnswerHarness.Check(input);
            break;
        default:
            Harness.Check(target, input);
            break;
    }
}

static void WriteSeeds(string directory)
{
    Directory.CreateDirectory(directory);
    string vectors = Path.Combine(AppContext.BaseDirectory, "Vectors", "confluent-dotnet-2.15.0.jsonl");
    int n = 0;
    foreach (string line in File.ReadLines(vectors).Where(l => l.Length > 0))
    {
        using JsonDocument json = JsonDocument.Parse(line);
        JsonElement o = json.RootElement;
        byte[] data = Convert.FromHexString(o.GetProperty("data_hex").GetString()!);
        if (data.Length > 4096)
        {
            continue; // AFL works best with small inputs
        }

        byte options = (byte)(o.GetProperty("component").GetString() == "key" ? 0x04 : 0x00);
        byte[]? header = o.GetProperty("headers").EnumerateArray().Select(h => Convert.FromHexString(h[1].GetString()!)).FirstOrDefault();
        File.WriteAllBytes(Path.Combine(directory, $"vector-{n++:D2}"), Harness.Encode(options, data, header));
    }

    // A few hand-made edges: empty, [0] short form, legacy path, a header with trailing bytes.
    File.WriteAllBytes(Path.Combine(directory, "edge-empty"), [0]);
    File.WriteAllBytes(Path.Combine(directory, "edge-zero"), [0, 0, 0, 0, 0, 1, 0, 0x0a, 0x01, 0x41]);
    File.WriteAllBytes(Path.Combine(directory, "edge-legacy"), [1, 0, 0, 0, 0, 1, 1, 1, 0x0a, 0x00]);
    File.WriteAllBytes(Path.Combine(directory, "edge-header"), Harness.Encode(0, [0x0a, 0x00], [0, 0, 0, 0, 2, 2, 2, 0xff]));
}

// A registry's answers: byte 0 picks the status and content type (RegistryAnswerHarness), the rest is the body.
static void WriteRegistrySeeds(string directory)
{
    Directory.CreateDirectory(directory);
    string Schema(string type, string schema, string references = "[]") =>
        "{\"id\":1,\"schemaType\":\"" + type + "\",\"schema\":\"" + schema + "\",\"references\":" + references + "}";
    string telemetry = Google.Protobuf.ByteString.CopyFrom(Vectors.Telemetry.V1.TelemetryReflection.Descriptor.SerializedData.ToByteArray()).ToBase64();
    var answers = new (byte Selector, string Body)[]
    {
        (0, Schema("PROTOBUF", telemetry)),
        (0, Schema("PROTOBUF", telemetry, "[{\"name\":\"google/protobuf/timestamp.proto\",\"subject\":\"ts\",\"version\":1}]")),
        (0, Schema("AVRO", "\\\"string\\\"")),
        (0, Schema("PROTOBUF", telemetry, "[null,{\"name\":null,\"subject\":null,\"version\":0}]")),
        (4, "{\"error_code\":40403,\"message\":\"Schema not found\"}"),
        (5, "{\"error_code\":42202,\"message\":\"Invalid schema\"}"),
        (0x20, "<html><body>a proxy</body></html>"),
    };
    for (int i = 0; i < answers.Length; i++)
    {
        File.WriteAllBytes(Path.Combine(directory, $"answer-{i:D2}"), [answers[i].Selector, .. System.Text.Encoding.UTF8.GetBytes(answers[i].Body)]);
    }
}
