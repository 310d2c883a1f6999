using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Tests.Hostile;
using KafkaProtobuf.Tests.Support;
using Vectors.Telemetry.V1;
using Xunit;
using Type = Google.Protobuf.Reflection.FieldDescriptorProto.Types.Type;
using static KafkaProtobuf.Tests.Support.TestDescriptors;

namespace KafkaProtobuf.Tests.Registry;

/// <summary>
/// A registry's answer for a schema id that can never be read as a Protobuf file is bad data for the record (its own
/// error code, dead-lettered like any poison record), asked once and not retried; a failure to ask (5xx, 429, a timeout,
/// a proxy's page, a 403 for one schema) stays an outage, read again. Each row is a registry on loopback answering as
/// scripted; each goes through the registry client as a deserializer's source, as the hosted consumer and the Streamiz
/// serdes use it.
/// </summary>
public sealed class UnusableSchemaTests : IDisposable
{
    private const int Id = 7;
    private static readonly Reading AReading = new() { SensorId = "s-1" };
    private static readonly SerializationContext Value = new(MessageComponentType.Value, "telemetry");

    private readonly ScriptedRegistry _registry = new();

    public void Dispose() => _registry.Dispose();

    /// <summary>Each way a registry's answer for an id is final and unusable: how to script it, and what the reason says.</summary>
    public static TheoryData<string, string> UnusableAnswers() => new()
    {
        { "an Avro schema", "is an AVRO schema, not Protobuf" },
        { "a JSON Schema", "is a JSON schema, not Protobuf" },
        { "a descriptor with an undefined field type", "its descriptor does not build" },
        { "text that is no base64 descriptor", "is not a serialized FileDescriptorProto in base64" },
        { "an import without a reference", "imports other.proto but has no reference for it" },
        { "a reference the registry lacks (40401)", "its reference other.proto" },
        { "a reference whose version the registry lacks (40402)", "Version 3 not found" },
        { "a reference that is Avro", "its reference other.proto → other v1 is an AVRO schema, not Protobuf" },
        { "references in a cycle", "its references form a cycle through a.proto" },
        { "a reference with no subject", "names no subject and version to fetch" },
        { "a reference of version 0", "names no subject and version to fetch" },
        { "a 422 for the id", "(error code 42202)" },
        { "a 404 for the id with another error code", "(error code 404)" },
        { "JSON that is no schema", "the answer is not the JSON expected" },
        { "JSON nested past the deserializer's depth", "the answer is not the JSON expected" },
        { "an answer past MaxResponseBytes", "larger than MaxResponseBytes (2,048 bytes)" },
        { "a declared length past MaxResponseBytes", "larger than MaxResponseBytes (2,048 bytes)" },
        { "more references than MaxReferences", "more than MaxReferences (2) references" },
        { "references deeper than MaxReferenceDepth", "deeper than MaxReferenceDepth (2)" },
        { "a schema and references past MaxResponseBytes in all", "take more than MaxResponseBytes (2,048 bytes) in all" },
    };

    [Theory]
    [MemberData(nameof(UnusableAnswers))]
    public void AnAnswerThatCanNeverBeUsed_IsBadData_WithItsOwnCode_AskedOnceAndNeverRetried(string answer, string reason)
    {
        Script(answer);
        using RegistryClient client = Client();
        var deserializer = new FramedProtobufDeserializer<Reading>(new FramedDeserializerOptions { VerifyWriterType = true, WriterSchemas = { Source = client } });

        InvalidFrameException e = Assert.Throws<InvalidFrameException>(() => deserializer.Deserialize(Frame(), false, Value));
        bool answered = deserializer.TryDeserialize(Frame(), false, Value, out _, out FrameError error);

        Assert.Equal(FrameErrorCode.UnusableWriterSchema, e.ErrorCode);
        Assert.Equal(SchemaIdentifier.FromId(Id), e.SchemaId);
        Assert.Equal(5, e.Offset); // the path's
        UnusableSchemaException unusable = Assert.IsType<UnusableSchemaException>(e.InnerException);
        Assert.Contains(reason, unusable.Reason, StringComparison.Ordinal);
        Assert.Contains(reason, e.Message, StringComparison.Ordinal);
        Assert.InRange(e.Message.Length, 1, 2_000);
        Assert.False(answered);
        Assert.Equal(FrameErrorCode.UnusableWriterSchema, error.Code);
        Assert.Equal(2, _registry.RequestCount("/schemas/ids/" + Id)); // once per record (MaxRetries is 2: none was retried)
    }

    [Theory]
    [InlineData("a 503", 503)]
    [InlineData("a 429", 429)]
    [InlineData("a proxy's HTML page on 200", null)]
    [InlineData("a 200 in the registry's content type whose body is not JSON at all", null)]
    [InlineData("a 503 for a reference", 503)]
    [InlineData("a 403 for the id", 403)]
    [InlineData("an answer cut off before its end", null)]
    [InlineData("an empty 200 with no content type, as HttpListener answers the requests it holds when it closes", null)]
    public void AFailureToAsk_IsAnOutage_ReadAgainLater_NotBadData(string answer, int? status)
    {
        Script(answer);
        using RegistryClient client = Client();
        var deserializer = new FramedProtobufDeserializer<Reading>(new FramedDeserializerOptions { VerifyWriterType = true, WriterSchemas = { Source = client } });

        SchemaUnavailableException e = Assert.Throws<SchemaUnavailableException>(() => deserializer.Deserialize(Frame(), false, Value));

        Assert.False(e.IsAccessDenied); // a 403 too: one schema's permission must not stop the application
        SchemaRegistryRequestException cause = Assert.IsAssignableFrom<SchemaRegistryRequestException>(e.InnerException);
        Assert.Equal(status, cause.StatusCode);
        Assert.Throws<SchemaUnavailableException>(() => deserializer.TryDeserialize(Frame(), false, Value, out _, out _)); // not an error of the record
    }

    [Fact]
    public void AProxysPageFullOfEscapes_IsQuotedInert_InEveryMessage()
    {
        _registry.Raw("/schemas/ids/" + Id, 200, "text/html", Encoding.UTF8.GetBytes("<html>" + HostileRecords.Escapes + "\r\nforged</html>"));
        using RegistryClient client = Client();
        var deserializer = new FramedProtobufDeserializer<Reading>(new FramedDeserializerOptions { VerifyWriterType = true, WriterSchemas = { Source = client } });

        SchemaUnavailableException e = Assert.Throws<SchemaUnavailableException>(() => deserializer.Deserialize(Frame(), false, Value));

        SchemaRegistryRequestException cause = Assert.IsAssignableFrom<SchemaRegistryRequestException>(e.InnerException);
        Assert.Contains(HostileRecords.EscapesWrittenOut + @"\x0d\x0aforged", cause.Message, StringComparison.Ordinal);
        string logged = e.ToString(); // what a log line prints: every message down the chain
        Assert.DoesNotContain(logged, c => c is '\u001b' or '\u0007' or '\u202e');
        Assert.DoesNotContain("\nforged", logged, StringComparison.Ordinal); // no line of its own in a log
    }

    [Fact]
    public void RefusedCredentials_AreAccessDenied_WhereAForbiddenSchemaIsNot()
    {
        _registry.Error("/schemas/ids/" + Id, 401, 40101, "Unauthorized");
        using RegistryClient client = Client();
        var deserializer = new FramedProtobufDeserializer<Reading>(new FramedDeserializerOptions { VerifyWriterType = true, WriterSchemas = { Source = client } });

        Assert.True(Assert.Throws<SchemaUnavailableException>(() => deserializer.Deserialize(Frame(), false, Value)).IsAccessDenied);
    }

    [Fact]
    public async Task GetFile_ThrowsTheUnusableAnswer_AndAnUnknownIdStaysNotFound()
    {
        Script("an Avro schema");
        using RegistryClient client = Client();

        UnusableSchemaException unusable = await Assert.ThrowsAsync<UnusableSchemaException>(() => client.GetFileAsync(SchemaIdentifier.FromId(Id)));
        SchemaRegistryRequestException unknown = await Assert.ThrowsAsync<SchemaRegistryRequestException>(() => client.GetFileAsync(SchemaIdentifier.FromId(99)));

        Assert.Equal(SchemaIdentifier.FromId(Id), unusable.SchemaId);
        Assert.True(unknown.IsNotFound);
        Assert.Null(await ((ISchemaFileSource)client).GetSchemaFileAsync(SchemaIdentifier.FromId(99), default)); // UnknownSchemaId, as before
    }

    [Fact]
    public void AHugeRegistryErrorMessage_IsCutInEveryMessage()
    {
        _registry.Error("/schemas/ids/" + Id, 422, 42202, new string('x', 1_000_000));
        using RegistryClient client = new(new RegistryClientOptions { Urls = { _registry.Url } }); // a 1 MB answer is within the default MaxResponseBytes
        var deserializer = new FramedProtobufDeserializer<Reading>(new FramedDeserializerOptions { VerifyWriterType = true, WriterSchemas = { Source = client } });

        InvalidFrameException e = Assert.Throws<InvalidFrameException>(() => deserializer.Deserialize(Frame(), false, Value));

        Assert.InRange(e.Message.Length, 1, 3_000);
        Assert.Contains("[cut: 1,000,000 characters in all]", e.Message, StringComparison.Ordinal);
    }

    private RegistryClient Client() => new(new RegistryClientOptions
    {
        Urls = { _registry.Url },
        MaxRetries = 2,
        RetryBackoff = TimeSpan.Zero,
        MaxRetryBackoff = TimeSpan.Zero,
        MaxResponseBytes = 2048,
        MaxReferences = 2,
        MaxReferenceDepth = 2,
    });

    private static byte[] Frame() => [0x00, 0, 0, 0, Id, 0x00, .. AReading.ToByteArray()];

    private void Script(string answer)
    {
        string ids = "/schemas/ids/" + Id;
        switch (answer)
        {
            case "an Avro schema":
                _registry.Schema(Id, "AVRO", "{\"type\":\"record\",\"name\":\"Reading\",\"fields\":[{\"name\":\"sensor_id\",\"type\":\"string\"}]}");
                break;
            case "a JSON Schema":
                _registry.Schema(Id, "JSON", "{\"type\":\"object\"}");
                break;
            case "a descriptor with an undefined field type":
                _registry.Schema(Id, File("reading.proto", Message("Reading", Field("next", 1, Type.Message, ".nope.Missing"))));
                break;
            case "text that is no base64 descriptor":
                _registry.Schema(Id, "PROTOBUF", "syntax = \"proto3\"; message Reading {}");
                break;
            case "an import without a reference":
                _registry.Schema(Id, File("reading.proto", Message("Reading"), "other.proto"));
                break;
            case "a reference the registry lacks (40401)":
                _registry.Schema(Id, File("reading.proto", Message("Reading"), "other.proto"), ("other.proto", "other", 1));
                _registry.Error("/subjects/other/versions/1", 404, 40401, "Subject 'other' not found.");
                break;
            case "a reference whose version the registry lacks (40402)":
                _registry.Schema(Id, File("reading.proto", Message("Reading"), "other.proto"), ("other.proto", "other", 3));
                _registry.Error("/subjects/other/versions/3", 404, 40402, "Version 3 not found.");
                break;
            case "a reference that is Avro":
                _registry.Schema(Id, File("reading.proto", Message("Reading"), "other.proto"), ("other.proto", "other", 1));
                _registry.Json("/subjects/other/versions/1", 200, "{\"schema\":\"\\\"string\\\"\"}");
                break;
            case "references in a cycle":
                _registry.Schema(Id, File("reading.proto", Message("Reading"), "a.proto"), ("a.proto", "a", 1));
                _registry.Version("a", 1, File("a.proto", Message("A"), "b.proto"), ("b.proto", "b", 1));
                _registry.Version("b", 1, File("b.proto", Message("B"), "a.proto"), ("a.proto", "a", 1));
                break;
            case "a reference with no subject":
                _registry.Schema(Id, File("reading.proto", Message("Reading"), "other.proto"), ("other.proto", string.Empty, 1));
                break;
            case "a reference of version 0":
                _registry.Schema(Id, File("reading.proto", Message("Reading"), "other.proto"), ("other.proto", "other", 0));
                break;
            case "a 422 for the id":
                _registry.Error(ids, 422, 42202, "Invalid format");
                break;
            case "a 404 for the id with another error code":
                _registry.Error(ids, 404, 404, "HTTP 404 Not Found");
                break;
            case "JSON nested past the deserializer's depth":
                _registry.Json(ids, 200, new string('[', 1_000) + new string(']', 1_000)); // past 64, within MaxResponseBytes
                break;
            case "JSON that is no schema":
                _registry.Json(ids, 200, "{\"schema\": [1, 2, 3]}");
                break;
            case "an answer past MaxResponseBytes":
                _registry.Schema(Id, "PROTOBUF", new string('A', 4096));
                break;
            case "a declared length past MaxResponseBytes":
                _registry.Raw(ids, 200, "application/vnd.schemaregistry.v1+json", Encoding.UTF8.GetBytes("{\"schema\":\""), declaredLength: 100_000_000);
                break;
            case "more references than MaxReferences":
                _registry.Schema(Id, File("reading.proto", Message("Reading"), "a.proto", "b.proto", "c.proto"), ("a.proto", "a", 1), ("b.proto", "b", 1), ("c.proto", "c", 1));
                _registry.Version("a", 1, File("a.proto", Message("A")));
                _registry.Version("b", 1, File("b.proto", Message("B")));
                _registry.Version("c", 1, File("c.proto", Message("C")));
                break;
            case "references deeper than MaxReferenceDepth":
                _registry.Schema(Id, File("reading.proto", Message("Reading"), "a.proto"), ("a.proto", "a", 1));
                _registry.Version("a", 1, File("a.proto", Message("A"), "b.proto"), ("b.proto", "b", 1));
                _registry.Version("b", 1, File("b.proto", Message("B"), "c.proto"), ("c.proto", "c", 1));
                _registry.Version("c", 1, File("c.proto", Message("C")));
                break;
            case "a schema and references past MaxResponseBytes in all":
                // Each answer fits; together they do not.
                _registry.Schema(Id, File("reading.proto", Message("Reading", Field(new string('r', 900), 1, Type.String)), "a.proto"), ("a.proto", "a", 1));
                _registry.Version("a", 1, File("a.proto", Message("A", Field(new string('a', 900), 1, Type.String))));
                break;
            case "a 503":
                _registry.Error(ids, 503, 50301, "Service unavailable");
                break;
            case "a 429":
                _registry.Error(ids, 429, 42901, "Too many requests");
                break;
            case "a proxy's HTML page on 200":
                _registry.Raw(ids, 200, "text/html", Encoding.UTF8.GetBytes("<html><body>Please log in to the Wi-Fi</body></html>"));
                break;
            case "a 200 in the registry's content type whose body is not JSON at all":
                // What a garbled answer looks like (seen from .NET's HttpListener while it stops): nothing the registry said.
                _registry.Raw(ids, 200, "application/vnd.schemaregistry.v1+json", Encoding.UTF8.GetBytes("<h1>Not Found (Invalid host)</h1>"));
                break;
            case "a 503 for a reference":
                _registry.Schema(Id, File("reading.proto", Message("Reading"), "other.proto"), ("other.proto", "other", 1));
                _registry.Error("/subjects/other/versions/1", 503, 50301, "Service unavailable");
                break;
            case "an answer cut off before its end":
                _registry.Raw(ids, 200, "application/vnd.schemaregistry.v1+json", Encoding.UTF8.GetBytes("{\"schema\":\""), declaredLength: 1000);
                break;
            case "an empty 200 with no content type, as HttpListener answers the requests it holds when it closes":
                _registry.Raw(ids, 200, null, []);
                break;
            case "a 403 for the id":
                _registry.Error(ids, 403, 40301, "User is denied operation Read on Subject: telemetry-value");
                break;
            default:
                throw new ArgumentOutOfRangeException(nameof(answer), answer, "no script");
        }
    }
}
