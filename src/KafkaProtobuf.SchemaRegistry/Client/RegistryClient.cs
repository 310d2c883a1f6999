using System;
using System.Collections.Generic;
using System.Linq;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;
using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// A small Confluent Schema Registry client: schemas by id, GUID, subject and version (Protobuf ones as serialized
/// descriptors), registration, lookup and compatibility checks, and the writer's .proto file of a schema id or GUID
/// with its references resolved. It speaks HTTP (timeouts, retries, fail-over, authentication) and nothing more:
/// concurrent identical requests share one HTTP request, and no answer is kept. As an <see cref="ISchemaFileSource"/>
/// it feeds the deserializers, which cache what they resolve.
/// </summary>
/// <remarks>
/// Every failure is a <see cref="SchemaRegistryRequestException"/>; refused credentials (401, 403, a token endpoint's
/// refusal) the derived <see cref="SchemaRegistryAuthenticationException"/>, never retried. Thread-safe; share one per registry and dispose it
/// at the end (a user-supplied <c>HttpClient</c> or handler is not disposed).
/// </remarks>
public sealed class RegistryClient : IDisposable, ISchemaFileSource
{
    private readonly RegistryTransport _transport;
    private readonly ReferenceLimits _limits;
    private readonly SingleFlight<IdKey, RegistrySchema> _byId = new();
    private readonly SingleFlight<IdKey, FileDescriptor> _files = new();
    private readonly SingleFlight<VersionKey, RegistrySchema> _byVersion = new();
    private readonly SingleFlight<RegistrationKey, RegistrySchema> _registrations = new();

    /// <summary>Creates a client for one registry URL with default settings.</summary>
    /// <param name="url">The registry's base URL, e.g. <c>https://psrc-1234.europe-west3.gcp.confluent.cloud</c>.</param>
    public RegistryClient(string url)
        : this(new RegistryClientOptions { Urls = { url } })
    {
    }

    /// <summary>Creates a client.</summary>
    /// <param name="options">The settings.</param>
    /// <exception cref="ArgumentException">No URL, more than one kind of authentication, both an HttpClient and a handler, or TLS options with either.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A timeout, retry count or back-off out of range.</exception>
    public RegistryClient(RegistryClientOptions options)
    {
        if (options is null)
        {
            throw new ArgumentNullException(nameof(options));
        }

        _transport = new RegistryTransport(options);
        _limits = new ReferenceLimits(options.MaxReferences, options.MaxReferenceDepth, options.MaxResponseBytes);
    }

    /// <summary>The schema of an id, Protobuf ones as serialized descriptors (<c>GET /schemas/ids/{id}?format=serialized</c>).</summary>
    /// <param name="id">The schema id.</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>The schema.</returns>
    /// <exception cref="SchemaRegistryRequestException">The request failed (40403: no such schema).</exception>
    public Task<RegistrySchema> GetSchemaAsync(int id, CancellationToken cancellationToken = default) =>
        CallerWait.WaitAsync(_byId.RunAsync(new IdKey(SchemaIdentifier.FromId(id)), FetchByIdAsync), cancellationToken);

    /// <summary>The schema of a GUID (<c>GET /schemas/guids/{guid}?format=serialized</c>).</summary>
    /// <param name="schemaGuid">The schema GUID.</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>The schema.</returns>
    /// <exception cref="SchemaRegistryRequestException">The request failed (40403: no such schema).</exception>
    public Task<RegistrySchema> GetSchemaByGuidAsync(Guid schemaGuid, CancellationToken cancellationToken = default) =>
        CallerWait.WaitAsync(_byId.RunAsync(new IdKey(SchemaIdentifier.FromGuid(schemaGuid)), FetchByIdAsync), cancellationToken);

    /// <summary>A version of a subject (<c>GET /subjects/{subject}/versions/{version}?format=serialized</c>).</summary>
    /// <param name="subject">The subject.</param>
    /// <param name="version">The version, 1 or more.</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>The schema, with its id, subject and version.</returns>
    /// <exception cref="SchemaRegistryRequestException">The request failed (40401: no such subject; 40402: no such version).</exception>
    public Task<RegistrySchema> GetVersionAsync(string subject, int version, CancellationToken cancellationToken = default)
    {
        CheckSubject(subject);
        if (version < 1)
        {
            throw new ArgumentOutOfRangeException(nameof(version), version, "Versions start at 1.");
        }

        return CallerWait.WaitAsync(_byVersion.RunAsync(new VersionKey(subject, version), FetchVersionAsync), cancellationToken);
    }

    /// <summary>The latest version of a subject (<c>GET /subjects/{subject}/versions/latest?format=serialized</c>).</summary>
    /// <param name="subject">The subject.</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>The schema, with its id, subject and version.</returns>
    /// <exception cref="SchemaRegistryRequestException">The request failed (40401: no such subject).</exception>
    public async Task<RegistrySchema> GetLatestVersionAsync(string subject, CancellationToken cancellationToken = default)
    {
        CheckSubject(subject);
        SchemaJson json = await _transport.SendAsync(HttpMethod.Get, "/subjects/" + RegistryPaths.Segment(subject) + "/versions/latest?format=serialized", null, RegistryJsonContext.Default.SchemaJson, cancellationToken).ConfigureAwait(false);
        return ToSchema(json);
    }

    /// <summary>
    /// The schema types the registry serves (<c>GET /schemas/types</c>): a small read that needs no write rights, for
    /// checking that the registry is reachable and accepts this client's credentials (a health check).
    /// </summary>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>The types, e.g. <c>AVRO</c>, <c>JSON</c>, <c>PROTOBUF</c>.</returns>
    /// <exception cref="SchemaRegistryRequestException">The request failed.</exception>
    public async Task<IReadOnlyList<string>> GetSchemaTypesAsync(CancellationToken cancellationToken = default) =>
        await _transport.SendAsync(HttpMethod.Get, "/schemas/types", null, RegistryJsonContext.Default.ListString, cancellationToken).ConfigureAwait(false);

    /// <summary>A subject's versions, oldest first (<c>GET /subjects/{subject}/versions</c>; deleted ones left out).</summary>
    /// <param name="subject">The subject.</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>The version numbers.</returns>
    /// <exception cref="SchemaRegistryRequestException">The request failed (40401: no such subject).</exception>
    public async Task<IReadOnlyList<int>> GetVersionsAsync(string subject, CancellationToken cancellationToken = default)
    {
        CheckSubject(subject);
        List<int> versions = await _transport.SendAsync(HttpMethod.Get, "/subjects/" + RegistryPaths.Segment(subject) + "/versions", null, RegistryJsonContext.Default.ListInt32, cancellationToken).ConfigureAwait(false);
        return versions.OrderBy(v => v).ToArray();
    }

    /// <summary>
    /// The compatibility level a registration under a subject is checked at: the subject's own, or else the global one
    /// (<c>GET /config/{subject}?defaultToGlobal=true</c>).
    /// </summary>
    /// <param name="subject">The subject.</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>The level.</returns>
    /// <exception cref="SchemaRegistryRequestException">The request failed, or the answer names no level this client knows.</exception>
    public async Task<CompatibilityLevel> GetCompatibilityLevelAsync(string subject, CancellationToken cancellationToken = default)
    {
        CheckSubject(subject);
        string path = "/config/" + RegistryPaths.Segment(subject) + "?defaultToGlobal=true";
        ConfigJson config = await _transport.SendAsync(HttpMethod.Get, path, null, RegistryJsonContext.Default.ConfigJson, cancellationToken).ConfigureAwait(false);
        return LevelOf(path, config.CompatibilityLevel);
    }

    /// <summary>The global compatibility level, the one a subject without its own is checked at (<c>GET /config</c>).</summary>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>The level.</returns>
    /// <exception cref="SchemaRegistryRequestException">The request failed, or the answer names no level this client knows.</exception>
    public async Task<CompatibilityLevel> GetGlobalCompatibilityLevelAsync(CancellationToken cancellationToken = default)
    {
        ConfigJson config = await _transport.SendAsync(HttpMethod.Get, "/config", null, RegistryJsonContext.Default.ConfigJson, cancellationToken).ConfigureAwait(false);
        return LevelOf("/config", config.CompatibilityLevel);
    }

    /// <summary>Sets a subject's own compatibility level (<c>PUT /config/{subject}</c>); the registry checks its next registrations at it.</summary>
    /// <param name="subject">The subject (it need not exist yet).</param>
    /// <param name="level">The level.</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>A task that completes when the registry has taken the level.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="level"/> is not a defined level.</exception>
    /// <exception cref="SchemaRegistryRequestException">The request failed (42203: the registry refused the level).</exception>
    public Task SetCompatibilityLevelAsync(string subject, CompatibilityLevel level, CancellationToken cancellationToken = default)
    {
        CheckSubject(subject);
        return PutLevelAsync("/config/" + RegistryPaths.Segment(subject), CompatibilityLevelNames.Of(level), cancellationToken);
    }

    /// <summary>Sets the global compatibility level (<c>PUT /config</c>): subjects without their own are checked at it.</summary>
    /// <param name="level">The level.</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>A task that completes when the registry has taken the level.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="level"/> is not a defined level.</exception>
    /// <exception cref="SchemaRegistryRequestException">The request failed.</exception>
    public Task SetGlobalCompatibilityLevelAsync(CompatibilityLevel level, CancellationToken cancellationToken = default) =>
        PutLevelAsync("/config", CompatibilityLevelNames.Of(level), cancellationToken);

    /// <summary>
    /// Removes a subject's own compatibility level (<c>DELETE /config/{subject}</c>): the subject is checked at the
    /// global level again.
    /// </summary>
    /// <param name="subject">The subject.</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>A task that completes when the registry has removed it.</returns>
    /// <exception cref="SchemaRegistryRequestException">The request failed (40401: the subject has no level of its own, or does not exist).</exception>
    public Task DeleteCompatibilityLevelAsync(string subject, CancellationToken cancellationToken = default)
    {
        CheckSubject(subject);
        return _transport.SendAsync(HttpMethod.Delete, "/config/" + RegistryPaths.Segment(subject), null, RegistryJsonContext.Default.ConfigJson, cancellationToken);
    }

    /// <summary>The registry's subjects, in its order (<c>GET /subjects</c>; deleted ones left out).</summary>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>The subject names.</returns>
    /// <exception cref="SchemaRegistryRequestException">The request failed.</exception>
    public async Task<IReadOnlyList<string>> GetSubjectsAsync(CancellationToken cancellationToken = default) =>
        await _transport.SendAsync(HttpMethod.Get, "/subjects", null, RegistryJsonContext.Default.ListString, cancellationToken).ConfigureAwait(false);

    /// <summary>
    /// A version of a subject in the registry's own text (<c>GET /subjects/{subject}/versions/{version}</c>): for
    /// Protobuf, .proto text as the registry prints it, to be written to a file; <see cref="GetVersionAsync"/> gives
    /// the serialized descriptor the deserializers build from.
    /// </summary>
    /// <param name="subject">The subject.</param>
    /// <param name="version">The version, 1 or more.</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>The schema, with its id, subject, version and references.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="version"/> is below 1.</exception>
    /// <exception cref="SchemaRegistryRequestException">The request failed (40401: no such subject; 40402: no such version).</exception>
    public Task<RegistrySchema> GetVersionTextAsync(string subject, int version, CancellationToken cancellationToken = default)
    {
        CheckSubject(subject);
        if (version < 1)
        {
            throw new ArgumentOutOfRangeException(nameof(version), version, "Versions start at 1.");
        }

        return GetTextAsync(subject, RegistryPaths.Number(version), cancellationToken);
    }

    /// <summary>The latest version of a subject in the registry's own text (see <see cref="GetVersionTextAsync"/>).</summary>
    /// <param name="subject">The subject.</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>The schema, with its id, subject, version and references.</returns>
    /// <exception cref="SchemaRegistryRequestException">The request failed (40401: no such subject).</exception>
    public Task<RegistrySchema> GetLatestVersionTextAsync(string subject, CancellationToken cancellationToken = default)
    {
        CheckSubject(subject);
        return GetTextAsync(subject, "latest", cancellationToken);
    }

    /// <summary>
    /// Registers a schema under a subject, or finds it if it is already there (<c>POST /subjects/{subject}/versions</c>):
    /// the answer has its id, GUID (registries since Confluent Platform 8.0) and version.
    /// </summary>
    /// <param name="subject">The subject.</param>
    /// <param name="schema">The schema text; for Protobuf, a serialized <c>FileDescriptorProto</c> in base64.</param>
    /// <param name="schemaType"><c>PROTOBUF</c>, <c>AVRO</c> or <c>JSON</c>.</param>
    /// <param name="references">Its references, e.g. the imports of a .proto file.</param>
    /// <param name="normalize">Ask the registry to normalize the schema first (Confluent's <c>normalize.schemas</c>).</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>The registered schema.</returns>
    /// <exception cref="SchemaRegistryRequestException">The request failed (409/40901: incompatible; 422/42201: invalid schema).</exception>
    public Task<RegistrySchema> RegisterAsync(string subject, string schema, string schemaType, IReadOnlyList<RegistryReference> references, bool normalize, CancellationToken cancellationToken = default) =>
        RegisterOrLookupAsync(subject, schema, schemaType, references, normalize, register: true, cancellationToken);

    /// <summary>Finds the version of a subject that holds a schema, without registering it (<c>POST /subjects/{subject}</c>).</summary>
    /// <param name="subject">The subject.</param>
    /// <param name="schema">The schema text.</param>
    /// <param name="schemaType"><c>PROTOBUF</c>, <c>AVRO</c> or <c>JSON</c>.</param>
    /// <param name="references">Its references.</param>
    /// <param name="normalize">Normalize the schema before comparing.</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>The registered schema with its id, subject and version.</returns>
    /// <exception cref="SchemaRegistryRequestException">The request failed (40401: no such subject; 40403: the schema is not in it).</exception>
    public Task<RegistrySchema> LookupAsync(string subject, string schema, string schemaType, IReadOnlyList<RegistryReference> references, bool normalize, CancellationToken cancellationToken = default) =>
        RegisterOrLookupAsync(subject, schema, schemaType, references, normalize, register: false, cancellationToken);

    /// <summary>Whether a schema is compatible with a subject's latest version (<c>POST /compatibility/subjects/{subject}/versions/latest</c>).</summary>
    /// <param name="subject">The subject.</param>
    /// <param name="schema">The schema text.</param>
    /// <param name="schemaType"><c>PROTOBUF</c>, <c>AVRO</c> or <c>JSON</c>.</param>
    /// <param name="references">Its references.</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>The registry's answer.</returns>
    /// <exception cref="SchemaRegistryRequestException">The request failed.</exception>
    public async Task<bool> IsCompatibleAsync(string subject, string schema, string schemaType, IReadOnlyList<RegistryReference> references, CancellationToken cancellationToken = default)
    {
        CheckSubject(subject);
        CompatibilityJson answer = await _transport.SendAsync(
            HttpMethod.Post, "/compatibility/subjects/" + RegistryPaths.Segment(subject) + "/versions/latest", Request(schema, schemaType, references), RegistryJsonContext.Default.CompatibilityJson, cancellationToken).ConfigureAwait(false);
        return answer.IsCompatible;
    }

    /// <summary>
    /// The registry's own verdict on a schema as the next version of a subject, checked at the subject's level against
    /// the versions that level names (<c>POST /compatibility/subjects/{subject}/versions?verbose=true</c>), with its
    /// messages: what Confluent's Maven plugin's <c>test-compatibility</c> asks.
    /// </summary>
    /// <param name="subject">The subject.</param>
    /// <param name="schema">The schema text; for Protobuf, a serialized <c>FileDescriptorProto</c> in base64.</param>
    /// <param name="schemaType"><c>PROTOBUF</c>, <c>AVRO</c> or <c>JSON</c>.</param>
    /// <param name="references">Its references.</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>The verdict and the registry's messages (none when it is compatible, or when the registry gives none).</returns>
    /// <exception cref="SchemaRegistryRequestException">The request failed (422/42201: the schema is invalid).</exception>
    public Task<RegistryCompatibilityVerdict> TestCompatibilityAsync(string subject, string schema, string schemaType, IReadOnlyList<RegistryReference> references, CancellationToken cancellationToken = default)
    {
        CheckSubject(subject);
        SchemaRequestJson request = Request(schema, schemaType, references);
        return TestAsync(subject, request, cancellationToken);
    }

    /// <summary>
    /// The writer's .proto file of a schema id or GUID, with its references fetched and resolved into one
    /// <see cref="FileDescriptor"/> (well-known types from Google.Protobuf). Concurrent callers for one schema share the
    /// requests; nothing is kept (a deserializer caches the answer, see <see cref="WriterSchemaOptions"/>).
    /// </summary>
    /// <param name="schemaId">The schema id or GUID.</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>The file.</returns>
    /// <exception cref="SchemaRegistryRequestException">
    /// A request failed: the registry could not be asked, failed (5xx, 429), refused the credentials, or has no such
    /// schema (404, error code 40403).
    /// </exception>
    /// <exception cref="UnusableSchemaException">
    /// The registry's answer cannot be read as a Protobuf file: the schema is not Protobuf or does not build, a
    /// reference is missing or refused, the registry refused the request for it (a 4xx with its error code, but for
    /// 40403), or the answers are past <see cref="RegistryClientOptions.MaxResponseBytes"/>,
    /// <see cref="RegistryClientOptions.MaxReferences"/> or <see cref="RegistryClientOptions.MaxReferenceDepth"/>.
    /// </exception>
    public Task<FileDescriptor> GetFileAsync(SchemaIdentifier schemaId, CancellationToken cancellationToken = default)
    {
        if (schemaId.Kind == SchemaIdKind.None)
        {
            throw new ArgumentException("The schema identifier is empty.", nameof(schemaId));
        }

        return CallerWait.WaitAsync(_files.RunAsync(new IdKey(schemaId), BuildFileAsync), cancellationToken);
    }

    /// <summary>
    /// For the deserializers (<see cref="WriterSchemaOptions.Source"/>): <see cref="GetFileAsync"/>, with a schema the
    /// registry does not have (<c>40403</c>) answered <see langword="null"/>, so that its records are bad data
    /// (<see cref="FrameErrorCode.UnknownSchemaId"/>), as are those of a schema that cannot be used
    /// (<see cref="UnusableSchemaException"/>, <see cref="FrameErrorCode.UnusableWriterSchema"/>). A failure to ask is
    /// thrown (the deserializer reports it as <see cref="SchemaUnavailableException"/>, and the record is read again): a
    /// refusal of the credentials (401, or the token endpoint's) as an <see cref="UnauthorizedAccessException"/> around
    /// the <see cref="SchemaRegistryAuthenticationException"/>, so that the deserializer's exception says
    /// <see cref="SchemaUnavailableException.IsAccessDenied"/>; a 403 (these credentials may not read this schema) as it
    /// is, an outage of this schema until the permission is granted, so that one record never stops the application.
    /// </summary>
    /// <param name="schemaId">The schema id or GUID.</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>The file, or <see langword="null"/> for a schema the registry does not have.</returns>
    /// <exception cref="SchemaRegistryRequestException">The registry could not be asked, failed, or refused this schema (403).</exception>
    /// <exception cref="UnauthorizedAccessException">The registry (401) or the token endpoint refused the credentials.</exception>
    /// <exception cref="UnusableSchemaException">The registry's answer for the identifier cannot be used.</exception>
    async Task<FileDescriptor?> ISchemaFileSource.GetSchemaFileAsync(SchemaIdentifier schemaId, CancellationToken cancellationToken)
    {
        try
        {
            return await GetFileAsync(schemaId, cancellationToken).ConfigureAwait(false);
        }
        catch (SchemaRegistryRequestException e) when (IsUnknownSchema(e))
        {
            return null;
        }
        catch (SchemaRegistryAuthenticationException e) when (e.StatusCode == 401 || e.FromTokenEndpoint)
        {
            // The deserializer's contract for "waiting will not help" (SchemaUnavailableException.IsAccessDenied).
            throw new UnauthorizedAccessException(e.Message, e);
        }
    }

    /// <summary>Closes the client's own HTTP connections (not a user-supplied <c>HttpClient</c> or handler).</summary>
    public void Dispose() => _transport.Dispose();

    internal static SchemaRequestJson Request(string schema, string schemaType, IReadOnlyList<RegistryReference> references) => new()
    {
        Schema = schema ?? throw new ArgumentNullException(nameof(schema)),
        SchemaType = schemaType == "AVRO" ? null : schemaType ?? throw new ArgumentNullException(nameof(schemaType)),
        References = (references ?? throw new ArgumentNullException(nameof(references))).Count == 0
            ? null
            : references.Select(r => new ReferenceJson { Name = r.Name, Subject = r.Subject, Version = r.Version }).ToList(),
    };

    private async Task<RegistrySchema> RegisterOrLookupAsync(
        string subject, string schema, string schemaType, IReadOnlyList<RegistryReference> references, bool normalize, bool register, CancellationToken cancellationToken)
    {
        CheckSubject(subject);
        SchemaRequestJson request = Request(schema, schemaType, references);
        var key = new RegistrationKey(subject, schema, schemaType, references, normalize, register);
        return await CallerWait.WaitAsync(_registrations.RunAsync(key, async k =>
        {
            string path = "/subjects/" + RegistryPaths.Segment(subject) + (register ? "/versions" : string.Empty) + "?normalize=" + RegistryPaths.Flag(normalize);
            SchemaJson json = await _transport.SendAsync(HttpMethod.Post, path, request, RegistryJsonContext.Default.SchemaJson, CancellationToken.None).ConfigureAwait(false);
            return ToSchema(json, schema, schemaType, references, subject);
        }), cancellationToken).ConfigureAwait(false);
    }

    private async Task<RegistrySchema> GetTextAsync(string subject, string version, CancellationToken cancellationToken)
    {
        string path = "/subjects/" + RegistryPaths.Segment(subject) + "/versions/" + version;
        SchemaJson json = await _transport.SendAsync(HttpMethod.Get, path, null, RegistryJsonContext.Default.SchemaJson, cancellationToken).ConfigureAwait(false);
        return ToSchema(json, subject: subject);
    }

    private async Task<RegistryCompatibilityVerdict> TestAsync(string subject, SchemaRequestJson request, CancellationToken cancellationToken)
    {
        CompatibilityJson answer = await _transport.SendAsync(
            HttpMethod.Post, "/compatibility/subjects/" + RegistryPaths.Segment(subject) + "/versions?verbose=true", request, RegistryJsonContext.Default.CompatibilityJson, cancellationToken).ConfigureAwait(false);
        return new RegistryCompatibilityVerdict(answer.IsCompatible, answer.Messages?.OfType<string>().ToArray() ?? Array.Empty<string>());
    }

    private async Task PutLevelAsync(string path, string level, CancellationToken cancellationToken)
    {
        byte[] content = System.Text.Json.JsonSerializer.SerializeToUtf8Bytes(
            new ConfigUpdateJson { Compatibility = level }, RegistryJsonContext.Default.ConfigUpdateJson);
        await _transport.SendContentAsync(HttpMethod.Put, path, content, RegistryJsonContext.Default.ConfigUpdateJson, cancellationToken).ConfigureAwait(false);
    }

    private static CompatibilityLevel LevelOf(string path, string? name) =>
        CompatibilityLevelNames.TryParse(name, out CompatibilityLevel level)
            ? level
            : throw new SchemaRegistryRequestException(path, 200, null, "the answer names no compatibility level this client knows: " + BoundedText.Cut(name ?? "(none)", 100), null);

    private async Task<RegistrySchema> FetchByIdAsync(IdKey key)
    {
        string path = key.Id.Kind == SchemaIdKind.Id
            ? "/schemas/ids/" + RegistryPaths.Number(key.Id.Id!.Value) + "?format=serialized"
            : "/schemas/guids/" + key.Id.Guid!.Value.ToString("D") + "?format=serialized";
        SchemaJson json = await _transport.SendAsync(HttpMethod.Get, path, null, RegistryJsonContext.Default.SchemaJson, CancellationToken.None).ConfigureAwait(false);
        return ToSchema(json, id: key.Id);
    }

    private async Task<RegistrySchema> FetchVersionAsync(VersionKey key)
    {
        string path = "/subjects/" + RegistryPaths.Segment(key.Subject) + "/versions/" + RegistryPaths.Number(key.Version) + "?format=serialized";
        SchemaJson json = await _transport.SendAsync(HttpMethod.Get, path, null, RegistryJsonContext.Default.SchemaJson, CancellationToken.None).ConfigureAwait(false);
        return ToSchema(json);
    }

    private async Task<FileDescriptor> BuildFileAsync(IdKey key)
    {
        RegistrySchema schema;
        try
        {
            schema = await _byId.RunAsync(key, FetchByIdAsync).ConfigureAwait(false);
        }
        catch (SchemaRegistryRequestException e) when (WriterFileBuilder.IsFinalAnswer(e) && !IsUnknownSchema(e))
        {
            throw new UnusableSchemaException(key.Id, "the registry's answer for it cannot be used: " + e.Message, e);
        }

        return await WriterFileBuilder.BuildAsync(key.Id, schema, (reference, token) => GetVersionAsync(reference.Subject, reference.Version, token), _limits, CancellationToken.None).ConfigureAwait(false);
    }

    /// <summary>The registry has no schema of that id or GUID (404, 40403): its records are unknown, not unusable.</summary>
    private static bool IsUnknownSchema(SchemaRegistryRequestException e) => e.StatusCode == 404 && e.ErrorCode == 40403;

    private static RegistrySchema ToSchema(
        SchemaJson json, string? schema = null, string? schemaType = null, IReadOnlyList<RegistryReference>? references = null, string? subject = null, SchemaIdentifier id = default) =>
        new(
            json.Schema ?? schema ?? string.Empty,
            json.SchemaType ?? schemaType ?? "AVRO",
            json.References is null ? references ?? Array.Empty<RegistryReference>() : RegistryPaths.References(json.References),
            json.Id ?? id.Id,
            System.Guid.TryParse(json.Guid, out Guid guid) ? guid : id.Guid,
            json.Subject ?? subject,
            json.Version);

    private static void CheckSubject(string subject)
    {
        if (string.IsNullOrEmpty(subject))
        {
            throw new ArgumentException("A subject is required.", nameof(subject));
        }
    }

    private readonly struct IdKey(SchemaIdentifier id) : IEquatable<IdKey>
    {
        internal SchemaIdentifier Id { get; } = id;

        public bool Equals(IdKey other) => Id == other.Id;

        public override bool Equals(object? obj) => obj is IdKey other && Equals(other);

        public override int GetHashCode() => Id.GetHashCode();
    }

    private readonly struct VersionKey(string subject, int version) : IEquatable<VersionKey>
    {
        internal string Subject { get; } = subject;

        internal int Version { get; } = version;

        public bool Equals(VersionKey other) => Version == other.Version && string.Equals(Subject, other.Subject, StringComparison.Ordinal);

        public override bool Equals(object? obj) => obj is VersionKey other && Equals(other);

        public override int GetHashCode() => (StringComparer.Ordinal.GetHashCode(Subject) * 397) ^ Version;
    }

    private sealed class RegistrationKey(string subject, string schema, string schemaType, IReadOnlyList<RegistryReference> references, bool normalize, bool register) : IEquatable<RegistrationKey>
    {
        private readonly string _subject = subject;
        private readonly string _schema = schema;
        private readonly string _schemaType = schemaType;
        private readonly RegistryReference[] _references = references.ToArray();
        private readonly bool _normalize = normalize;
        private readonly bool _register = register;

        public bool Equals(RegistrationKey? other) =>
            other is not null && _register == other._register && _normalize == other._normalize
            && _subject == other._subject && _schemaType == other._schemaType && _schema == other._schema
            && _references.SequenceEqual(other._references);

        public override bool Equals(object? obj) => Equals(obj as RegistrationKey);

        public override int GetHashCode() => (StringComparer.Ordinal.GetHashCode(_subject) * 397) ^ StringComparer.Ordinal.GetHashCode(_schema) ^ (_register ? 1 : 0);
    }
}
