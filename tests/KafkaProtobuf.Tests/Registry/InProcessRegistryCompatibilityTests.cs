using System;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Text;
using System.Text.Json;
using System.Threading.Tasks;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using Xunit;

namespace KafkaProtobuf.Tests.Registry;

/// <summary>
/// The in-process registry computes compatibility as the real one does: Confluent's rules at the subject's level
/// (BACKWARD by default), 409 with the registry's messages, the compatibility endpoints with <c>verbose</c>, schemas
/// registered as .proto text compiled (served <c>format=serialized</c>), and <c>normalize</c> honoured.
/// </summary>
public sealed class InProcessRegistryCompatibilityTests : IDisposable
{
    private const string Json = "application/vnd.schemaregistry.v1+json";

    private const string V1 = "syntax = \"proto3\";\npackage shop;\n\nmessage Order {\n  string id = 1;\n  int32 quantity = 2;\n}\n";
    private const string FieldAdded = "syntax = \"proto3\";\npackage shop;\n\nmessage Order {\n  string id = 1;\n  int32 quantity = 2;\n  string note = 3;\n}\n";
    private const string QuantityRemoved = "syntax = \"proto3\";\npackage shop;\n\nmessage Order {\n  string id = 1;\n}\n";
    private const string QuantityAsText = "syntax = \"proto3\";\npackage shop;\n\nmessage Order {\n  string id = 1;\n  string quantity = 2;\n}\n";

    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();
    private readonly HttpClient _http = new() { Timeout = TimeSpan.FromSeconds(30) };

    public void Dispose()
    {
        _http.Dispose();
        _registry.Dispose();
    }

    private static string Body(string schema, string references = "[]") =>
        JsonSerializer.Serialize(new { schema, schemaType = "PROTOBUF", references = JsonDocument.Parse(references).RootElement });

    private async Task<(HttpStatusCode Status, JsonElement Json)> Send(HttpMethod method, string path, string? body = null)
    {
        using var request = new HttpRequestMessage(method, _registry.Url + path);
        if (body is not null)
        {
            request.Content = new StringContent(body, Encoding.UTF8, Json);
        }

        using HttpResponseMessage response = await _http.SendAsync(request);
        return (response.StatusCode, JsonDocument.Parse(await response.Content.ReadAsStringAsync()).RootElement.Clone());
    }

    private async Task<int> Register(string subject, string schema, string query = "")
    {
        (HttpStatusCode status, JsonElement json) = await Send(HttpMethod.Post, "/subjects/" + subject + "/versions" + query, Body(schema));
        Assert.True(status == HttpStatusCode.OK, json.GetRawText());
        return json.GetProperty("version").GetInt32();
    }

    private static string[] Messages(JsonElement answer) => answer.GetProperty("messages").EnumerateArray().Select(m => m.GetString()!).ToArray();

    [Fact]
    public async Task AnIncompatibleRegistration_IsRefusedWith409_ListingTheDifferencesAsTheRegistryDoes()
    {
        Assert.Equal(1, await Register("orders-value", V1));
        Assert.Equal(2, await Register("orders-value", FieldAdded)); // compatible: a field added

        (HttpStatusCode status, JsonElement error) = await Send(HttpMethod.Post, "/subjects/orders-value/versions", Body(QuantityAsText));

        Assert.Equal(HttpStatusCode.Conflict, status);
        Assert.Equal(409, error.GetProperty("error_code").GetInt32() / 100);
        Assert.Equal(40901, error.GetProperty("error_code").GetInt32());
        Assert.Equal(
            "Schema being registered is incompatible with an earlier schema for subject \"orders-value\", details: ["
            + "{errorType:\"FIELD_SCALAR_KIND_CHANGED\", description:\"The kind of a SCALAR field at path '#/Order/2' in the new schema does not match its kind in the old schema\"}, "
            + "{oldSchemaVersion: 2}, {oldSchema: '" + FieldAdded + "'}, {validateFields: 'false', compatibility: 'BACKWARD'}]",
            error.GetProperty("message").GetString());
        Assert.Equal("[1,2]", (await Send(HttpMethod.Get, "/subjects/orders-value/versions")).Json.GetRawText());
        Assert.Equal(404, (int)(await Send(HttpMethod.Get, "/schemas/ids/3")).Status); // a refused schema takes no id
    }

    [Fact]
    public async Task CompatibilityEndpoints_AnswerIsCompatible_AndTheMessagesWhenVerbose()
    {
        await Register("orders-value", V1);

        (_, JsonElement quiet) = await Send(HttpMethod.Post, "/compatibility/subjects/orders-value/versions/latest", Body(QuantityAsText));
        Assert.Equal("{\"is_compatible\":false}", quiet.GetRawText());

        (_, JsonElement verbose) = await Send(HttpMethod.Post, "/compatibility/subjects/orders-value/versions/1?verbose=true", Body(QuantityAsText));
        Assert.False(verbose.GetProperty("is_compatible").GetBoolean());
        Assert.Equal(
            [
                "{errorType:\"FIELD_SCALAR_KIND_CHANGED\", description:\"The kind of a SCALAR field at path '#/Order/2' in the new schema does not match its kind in the old schema\"}",
                "{oldSchemaVersion: 1}",
                "{oldSchema: '" + V1 + "'}",
                "{validateFields: 'false', compatibility: 'BACKWARD'}",
            ],
            Messages(verbose));

        (_, JsonElement fine) = await Send(HttpMethod.Post, "/compatibility/subjects/orders-value/versions?verbose=true", Body(FieldAdded));
        Assert.True(fine.GetProperty("is_compatible").GetBoolean());
        Assert.Empty(Messages(fine));

        // No latest version to compare with: anything is compatible; a version that is not there is 40402.
        Assert.True((await Send(HttpMethod.Post, "/compatibility/subjects/nobody-value/versions/latest", Body(V1))).Json.GetProperty("is_compatible").GetBoolean());
        (HttpStatusCode missing, JsonElement missingError) = await Send(HttpMethod.Post, "/compatibility/subjects/orders-value/versions/7", Body(V1));
        Assert.Equal(HttpStatusCode.NotFound, missing);
        Assert.Equal(40402, missingError.GetProperty("error_code").GetInt32());

        // Text that does not compile: 422, or with verbose the parser's message (line and column) as the one message.
        (HttpStatusCode invalid, JsonElement invalidError) = await Send(HttpMethod.Post, "/compatibility/subjects/orders-value/versions/latest", Body("syntax = \"proto3\";\nmessage Order {\n  string id = ;\n}\n"));
        Assert.Equal(HttpStatusCode.UnprocessableEntity, invalid);
        Assert.Equal(42201, invalidError.GetProperty("error_code").GetInt32());
        (_, JsonElement invalidVerbose) = await Send(HttpMethod.Post, "/compatibility/subjects/orders-value/versions/latest?verbose=true", Body("syntax = \"proto3\";\nmessage Order {\n  string id = ;\n}\n"));
        Assert.False(invalidVerbose.GetProperty("is_compatible").GetBoolean());
        Assert.Contains("default.proto:3:15:", Assert.Single(Messages(invalidVerbose)), StringComparison.Ordinal);
    }

    [Fact]
    public async Task TransitiveLevels_CompareEveryEarlierVersion_OthersOnlyTheLatest()
    {
        await Register("orders-value", V1);
        await Register("orders-value", QuantityRemoved); // FIELD_REMOVED: compatible

        // Field 2 back as text: the latest version (without it) reads it; version 1 (int32 quantity) does not.
        Assert.True((await Send(HttpMethod.Post, "/compatibility/subjects/orders-value/versions", Body(QuantityAsText))).Json.GetProperty("is_compatible").GetBoolean());

        Assert.Equal("{\"compatibility\":\"BACKWARD_TRANSITIVE\"}", (await Send(HttpMethod.Put, "/config/orders-value", "{\"compatibility\":\"backward_transitive\"}")).Json.GetRawText());
        (_, JsonElement transitive) = await Send(HttpMethod.Post, "/compatibility/subjects/orders-value/versions?verbose=true", Body(QuantityAsText));
        Assert.False(transitive.GetProperty("is_compatible").GetBoolean());
        string[] messages = Messages(transitive);
        Assert.Contains("{oldSchemaVersion: 1}", messages);
        Assert.Equal("{validateFields: 'false', compatibility: 'BACKWARD_TRANSITIVE'}", messages[^1]);
        Assert.Equal(HttpStatusCode.Conflict, (await Send(HttpMethod.Post, "/subjects/orders-value/versions", Body(QuantityAsText))).Status);

        // The global level applies to subjects without one; NONE compares nothing.
        await Send(HttpMethod.Delete, "/config/orders-value");
        await Send(HttpMethod.Put, "/config", "{\"compatibility\":\"NONE\"}");
        Assert.Equal(3, await Register("orders-value", "syntax = \"proto3\";\npackage elsewhere;\nmessage Unrelated { bytes b = 9; }\n"));
    }

    [Fact]
    public async Task Forward_ReadsTheNewSchemaWithTheOld_AndFullBothWays()
    {
        const string Proto2 = "syntax = \"proto2\";\npackage shop;\nmessage Order {\n  required string id = 1;\n}\n";
        const string RequiredRemoved = "syntax = \"proto2\";\npackage shop;\nmessage Order {\n  optional string note = 2;\n}\n";
        await Send(HttpMethod.Put, "/config/orders-value", "{\"compatibility\":\"FORWARD\"}");
        await Register("orders-value", Proto2);

        // The old schema reads the new one's records: its required field 1 is missing from them.
        (_, JsonElement forward) = await Send(HttpMethod.Post, "/compatibility/subjects/orders-value/versions/latest?verbose=true", Body(RequiredRemoved));
        Assert.Equal(
            "{errorType:\"REQUIRED_FIELD_ADDED\", description:\"A required field  at path '#/Order/1' in the old schema is missing in the new schema\"}",
            Messages(forward)[0]);
        Assert.Equal("{oldSchemaVersion: 1}", Messages(forward)[1]);

        // FULL: both directions; the forward ones first, without the old schema, then the backward ones with it.
        await Send(HttpMethod.Put, "/config/orders-value", "{\"compatibility\":\"FULL\"}");
        (_, JsonElement full) = await Send(HttpMethod.Post, "/compatibility/subjects/orders-value/versions/latest?verbose=true", Body(RequiredRemoved));
        Assert.Equal(
            [
                "{errorType:\"REQUIRED_FIELD_ADDED\", description:\"A required field  at path '#/Order/1' in the old schema is missing in the new schema\"}",
                "{errorType:\"REQUIRED_FIELD_REMOVED\", description:\"The new schema is missing a required field at path: '#/Order/1' in the old schema\"}",
                "{oldSchemaVersion: 1}",
                "{oldSchema: '" + Proto2 + "'}",
                "{validateFields: 'false', compatibility: 'FULL'}",
            ],
            Messages(full));
    }

    [Fact]
    public async Task ASchemaRegisteredAsText_IsCompiledWithItsReferences_AndServedSerialized()
    {
        const string Common = "syntax = \"proto3\";\npackage shop.common;\nmessage Money {\n  string currency = 1;\n  int64 units = 2;\n}\n";
        const string Order = "syntax = \"proto3\";\npackage shop;\nimport \"shop/common.proto\";\nimport \"google/protobuf/timestamp.proto\";\n\nmessage Order {\n  shop.common.Money total = 1;\n  google.protobuf.Timestamp placed = 2;\n}\n";
        const string References = "[{\"name\":\"shop/common.proto\",\"subject\":\"shop-common\",\"version\":1}]";
        await Register("shop-common", Common);
        (HttpStatusCode status, JsonElement registered) = await Send(HttpMethod.Post, "/subjects/orders-value/versions", Body(Order, References));
        Assert.Equal(HttpStatusCode.OK, status);

        (_, JsonElement asText) = await Send(HttpMethod.Get, "/schemas/ids/" + registered.GetProperty("id").GetInt32());
        Assert.Equal(Order, asText.GetProperty("schema").GetString()); // text stays as it was sent
        (_, JsonElement serialized) = await Send(HttpMethod.Get, "/schemas/ids/" + registered.GetProperty("id").GetInt32() + "?format=serialized");
        FileDescriptorProto file = FileDescriptorProto.Parser.ParseFrom(Convert.FromBase64String(serialized.GetProperty("schema").GetString()!));
        Assert.Equal("default", file.Name);
        Assert.Equal(["shop/common.proto", "google/protobuf/timestamp.proto"], file.Dependency);
        Assert.Equal([".shop.common.Money", ".google.protobuf.Timestamp"], file.MessageType.Single().Field.Select(f => f.TypeName));

        // The referenced type's own change is seen through the reference: Money.units as a string is refused.
        const string CommonV2 = "syntax = \"proto3\";\npackage shop.common;\nmessage Money {\n  string currency = 1;\n  string units = 2;\n}\n";
        await Send(HttpMethod.Put, "/config/shop-common", "{\"compatibility\":\"NONE\"}");
        await Register("shop-common", CommonV2);
        (_, JsonElement check) = await Send(HttpMethod.Post, "/compatibility/subjects/orders-value/versions/latest?verbose=true", Body(Order, "[{\"name\":\"shop/common.proto\",\"subject\":\"shop-common\",\"version\":2}]"));
        Assert.StartsWith("{errorType:\"FIELD_SCALAR_KIND_CHANGED\", description:\"The kind of a SCALAR field at path '#/Money/2'", Messages(check)[0], StringComparison.Ordinal);
    }

    [Fact]
    public async Task TextThatDoesNotCompile_Is422_NamingTheLineAndColumn()
    {
        (HttpStatusCode status, JsonElement error) = await Send(HttpMethod.Post, "/subjects/orders-value/versions", Body("syntax = \"proto3\";\nmessage Order {\n  Missing item = 1;\n}\n"));

        Assert.Equal(HttpStatusCode.UnprocessableEntity, status);
        Assert.Equal(42201, error.GetProperty("error_code").GetInt32());
        Assert.Contains("default.proto:3:3: type not found: 'Missing'", error.GetProperty("message").GetString(), StringComparison.Ordinal);

        (HttpStatusCode missingImport, JsonElement importError) = await Send(HttpMethod.Post, "/subjects/orders-value/versions", Body("syntax = \"proto3\";\nimport \"not/referenced.proto\";\nmessage Order {}\n"));
        Assert.Equal(HttpStatusCode.UnprocessableEntity, missingImport);
        Assert.Contains("default.proto:2:8: unable to find: 'not/referenced.proto'", importError.GetProperty("message").GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task HostileText_NestedDeep_IsRefused_AndTheRegistryGoesOn()
    {
        string deep = "syntax = \"proto3\";\n" + string.Concat(Enumerable.Range(0, 20_000).Select(i => "message M" + i + " {")) + new string('}', 20_000);

        (HttpStatusCode status, JsonElement error) = await Send(HttpMethod.Post, "/subjects/deep-value/versions", Body(deep));

        Assert.Equal(HttpStatusCode.UnprocessableEntity, status);
        Assert.Contains("braces nest deeper than " + ProtoSource.MaxNesting, error.GetProperty("message").GetString(), StringComparison.Ordinal);
        Assert.Equal(1, await Register("orders-value", V1));
    }

    [Fact]
    public async Task TypesNamedDeeperThanTheCheckerGoes_Are422_NotACrash()
    {
        // 200 messages, each naming the next: legal text, deeper than ProtobufCompatibility.MaxTypeDepth (128).
        string chain = "syntax = \"proto3\";\n" + string.Concat(Enumerable.Range(0, 200).Select(i => "message M" + i + " { M" + (i + 1) + " next = 1; }\n")) + "message M200 { int32 x = 1; }\n";
        Assert.Equal(1, await Register("chain-value", chain)); // nothing to compare with yet

        (HttpStatusCode status, JsonElement error) = await Send(HttpMethod.Post, "/subjects/chain-value/versions", Body(chain.Replace("int32 x", "int64 x", StringComparison.Ordinal)));

        Assert.Equal(HttpStatusCode.UnprocessableEntity, status);
        Assert.Equal(42201, error.GetProperty("error_code").GetInt32());
        Assert.Contains(ProtobufCompatibility.MaxTypeDepth.ToString(System.Globalization.CultureInfo.InvariantCulture), error.GetProperty("message").GetString(), StringComparison.Ordinal);
        Assert.Equal(1, await Register("orders-value", V1));
    }

    [Theory]
    [InlineData("{\"schema\":\"syntax = \\\"proto3\\\";\",\"schemaType\":\"PROTOBUF\",\"references\":[{\"name\":1,\"subject\":\"x\",\"version\":1}]}")]
    [InlineData("{\"schema\":\"syntax = \\\"proto3\\\";\",\"schemaType\":\"PROTOBUF\",\"references\":[{\"name\":\"a.proto\",\"subject\":\"x\",\"version\":\"one\"}]}")]
    [InlineData("{\"schema\":\"syntax = \\\"proto3\\\";\",\"schemaType\":\"PROTOBUF\",\"references\":[{\"subject\":\"x\",\"version\":1}]}")]
    [InlineData("[1, 2, 3]")]
    public async Task ARequestWithFieldsOfTheWrongKind_Is422_AndTheRegistryGoesOn(string body)
    {
        (HttpStatusCode status, JsonElement error) = await Send(HttpMethod.Post, "/subjects/orders-value/versions", body);

        Assert.Equal(HttpStatusCode.UnprocessableEntity, status);
        Assert.Equal(42201, error.GetProperty("error_code").GetInt32());
        Assert.Equal(1, await Register("orders-value", V1));
    }

    [Fact]
    public async Task Normalize_MakesSchemasThatDifferInOrderAndLayoutOne()
    {
        const string Ordered = "syntax = \"proto3\";\npackage shop;\nimport \"google/protobuf/duration.proto\";\nimport \"google/protobuf/timestamp.proto\";\nmessage Order {\n  string id = 1;\n  google.protobuf.Timestamp placed = 2;\n  google.protobuf.Duration wait = 3;\n}\n";
        const string Shuffled = "// the same, written otherwise\nsyntax = \"proto3\";\npackage shop;\nimport \"google/protobuf/timestamp.proto\";\nimport \"google/protobuf/duration.proto\";\n\nmessage Order {\n  google.protobuf.Duration wait = 3;\n  string id = 1; // first\n  google.protobuf.Timestamp placed = 2;\n}\n";

        (_, JsonElement first) = await Send(HttpMethod.Post, "/subjects/orders-value/versions?normalize=true", Body(Ordered));
        (_, JsonElement second) = await Send(HttpMethod.Post, "/subjects/orders-value/versions?normalize=true", Body(Shuffled));
        Assert.Equal(first.GetProperty("id").GetInt32(), second.GetProperty("id").GetInt32());
        Assert.Equal(1, second.GetProperty("version").GetInt32());
        Assert.Equal(1, (await Send(HttpMethod.Post, "/subjects/orders-value?normalize=true", Body(Shuffled))).Json.GetProperty("version").GetInt32());

        // What is stored is the normalized text: imports sorted, fields in number order, names fully qualified.
        string stored = (await Send(HttpMethod.Get, "/subjects/orders-value/versions/1")).Json.GetProperty("schema").GetString()!;
        Assert.True(stored.IndexOf("duration.proto", StringComparison.Ordinal) < stored.IndexOf("timestamp.proto", StringComparison.Ordinal), stored);
        Assert.True(stored.IndexOf("id = 1", StringComparison.Ordinal) < stored.IndexOf("wait = 3", StringComparison.Ordinal), stored);
        Assert.DoesNotContain("//", stored, StringComparison.Ordinal);

        // Without normalize, the other layout is another schema (a new version, compatible).
        (_, JsonElement plain) = await Send(HttpMethod.Post, "/subjects/orders-value/versions", Body(Shuffled));
        Assert.NotEqual(first.GetProperty("id").GetInt32(), plain.GetProperty("id").GetInt32());
        Assert.Equal(2, plain.GetProperty("version").GetInt32());
    }

    [Fact]
    public async Task ThisPackagesClient_GetsTheVerdicts()
    {
        using var client = new RegistryClient(_registry.Url);
        await client.RegisterAsync("orders-value", V1, "PROTOBUF", [], normalize: false);

        Assert.True(await client.IsCompatibleAsync("orders-value", FieldAdded, "PROTOBUF", []));
        Assert.False(await client.IsCompatibleAsync("orders-value", QuantityAsText, "PROTOBUF", []));
        SchemaRegistryRequestException refused = await Assert.ThrowsAsync<SchemaRegistryRequestException>(() => client.RegisterAsync("orders-value", QuantityAsText, "PROTOBUF", [], normalize: false));
        Assert.Equal(409, refused.StatusCode);
        Assert.Equal(40901, refused.ErrorCode);
        Assert.Contains("FIELD_SCALAR_KIND_CHANGED", refused.Message, StringComparison.Ordinal);

        // What a check against a subject needs: its versions and its level (its own, else the global one).
        await client.RegisterAsync("orders-value", FieldAdded, "PROTOBUF", [], normalize: false);
        Assert.Equal([1, 2], await client.GetVersionsAsync("orders-value"));
        Assert.Equal(CompatibilityLevel.Backward, await client.GetCompatibilityLevelAsync("orders-value"));
        await Send(HttpMethod.Put, "/config/orders-value", "{\"compatibility\":\"FULL_TRANSITIVE\"}");
        Assert.Equal(CompatibilityLevel.FullTransitive, await client.GetCompatibilityLevelAsync("orders-value"));
        Assert.Equal(40401, (await Assert.ThrowsAsync<SchemaRegistryRequestException>(() => client.GetVersionsAsync("nobody-value"))).ErrorCode);
    }
}
