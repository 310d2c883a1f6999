using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;

namespace KafkaProtobuf.Testing.SchemaRegistry;

/// <summary>
/// The registry's state and rules, apart from HTTP: schemas with sequential ids from 1 and a GUID each (one per
/// distinct schema, shared by every subject that registers it), subjects with versions, references, compatibility
/// configuration and soft deletes. Every method is called under the server's lock.
/// </summary>
internal sealed class RegistryStore
{
    internal const string DefaultCompatibility = "BACKWARD";

    private readonly List<StoredSchema> _schemas = [];
    private readonly Dictionary<int, StoredSchema> _byId = [];
    private (int Id, Guid Guid)? _nextIdentity;
    private readonly Dictionary<string, StoredSchema> _byIdentity = new(StringComparer.Ordinal);
    private readonly Dictionary<string, Subject> _subjects = new(StringComparer.Ordinal);
    private readonly Dictionary<string, string> _subjectCompatibility = new(StringComparer.Ordinal);

    internal string GlobalCompatibility { get; set; } = DefaultCompatibility;

    internal IEnumerable<string> SubjectNames(bool includeDeleted) =>
        _subjects.Values.Where(s => includeDeleted || s.Versions.Any(v => !v.Deleted)).Select(s => s.Name);

    internal int MaxId => _byId.Count == 0 ? 0 : _byId.Keys.Max();

    internal StoredSchema? SchemaById(int id) => _byId.TryGetValue(id, out StoredSchema? schema) ? schema : null;

    /// <summary>Gives the next new schema this id and GUID (as a registry in import mode would take them).</summary>
    internal void AssignNext(int id, Guid guid)
    {
        if (id < 1 || _byId.ContainsKey(id) || _schemas.Any(s => s.Guid == guid))
        {
            throw new ArgumentException("The id must be positive and the id and GUID unused.", nameof(id));
        }

        _nextIdentity = (id, guid);
    }

    internal StoredSchema? SchemaByGuid(Guid guid) => _schemas.FirstOrDefault(s => s.Guid == guid);

    internal Subject? FindSubject(string name) => _subjects.TryGetValue(name, out Subject? subject) ? subject : null;

    internal string? SubjectCompatibility(string subject) => _subjectCompatibility.TryGetValue(subject, out string? level) ? level : null;

    internal void SetSubjectCompatibility(string subject, string level) => _subjectCompatibility[subject] = level;

    internal bool RemoveSubjectCompatibility(string subject) => _subjectCompatibility.Remove(subject);

    /// <summary>
    /// Registers (or finds) a schema under a subject; returns its version, or throws a <see cref="RegistryError"/>: 409
    /// when the subject's compatibility level refuses it (Protobuf schemas are compared as the real registry compares
    /// them; Avro and JSON Schema are not compared), 422 when it does not compile or a reference is missing.
    /// </summary>
    internal SubjectVersion Register(string subject, RegistrationRequest request)
    {
        PreparedSchema prepared = Prepare(request);
        _subjects.TryGetValue(subject, out Subject? existing);
        SubjectVersion? same = existing?.Versions.FirstOrDefault(v => !v.Deleted && v.Schema.IdentityKey == prepared.IdentityKey);
        if (same is not null)
        {
            return same; // idempotent: the same schema in a subject keeps its id and version
        }

        List<string> incompatibilities = Incompatibilities(subject, prepared, existing?.Versions.Where(v => !v.Deleted).ToList() ?? []);
        if (incompatibilities.Count > 0)
        {
            throw new RegistryError(409, 40901, "Schema being registered is incompatible with an earlier schema for subject \"" + subject + "\", details: [" + string.Join(", ", incompatibilities) + "]");
        }

        StoredSchema schema = Intern(prepared);
        if (existing is null)
        {
            existing = new Subject(subject);
            _subjects.Add(subject, existing);
        }

        var version = new SubjectVersion(existing, existing.Versions.Count == 0 ? 1 : existing.Versions.Max(v => v.Version) + 1, schema);
        existing.Versions.Add(version);
        return version;
    }

    /// <summary>
    /// <c>POST /compatibility/subjects/{subject}/versions[/{version}]</c>: the messages of the check a registration would
    /// make (none: compatible), against one version (<paramref name="version"/>: a number or <c>latest</c>; a subject
    /// without versions has no latest, so anything is compatible with it) or, when it is null, the subject's versions
    /// at its level.
    /// </summary>
    internal List<string> CheckCompatibility(string subject, string? version, RegistrationRequest request, bool verbose)
    {
        List<SubjectVersion> live = FindSubject(subject)?.Versions.Where(v => !v.Deleted).ToList() ?? [];
        if (version is not null)
        {
            if (version is "latest" or "-1")
            {
                live = live.Count == 0 ? [] : [live[live.Count - 1]];
            }
            else if (!int.TryParse(version, out int number) || number < 1)
            {
                throw new RegistryError(422, 42202, "The specified version '" + version + "' is not a valid version id. Allowed values are between [1, 2^31-1] and the string \"latest\"");
            }
            else
            {
                live = [live.FirstOrDefault(v => v.Version == number) ?? throw new RegistryError(404, 40402, "Version " + version + " not found.")];
            }
        }

        PreparedSchema prepared;
        try
        {
            prepared = Prepare(request);
        }
        catch (RegistryError e) when (verbose && e.ErrorCode == 42201)
        {
            return [e.Message]; // the real registry answers an invalid schema so when asked to be verbose
        }

        return Incompatibilities(subject, prepared, live);
    }

    /// <summary>The subject's level: its own, or the global one.</summary>
    internal CompatibilityLevel LevelOf(string subject) =>
        CompatibilityLevelNames.TryParse(SubjectCompatibility(subject) ?? GlobalCompatibility, out CompatibilityLevel level) ? level : CompatibilityLevel.Backward;

    private List<string> Incompatibilities(string subject, PreparedSchema candidate, List<SubjectVersion> earlier)
    {
        try
        {
            return CompatibilityMessages.Of(LevelOf(subject), candidate.SchemaType, candidate.Compared, earlier.Select(v => (v.Version, v.Schema)).ToList());
        }
        catch (ArgumentException e)
        {
            // Types nested or named deeper than the checker goes: the schema's fault, refused as invalid.
            throw new RegistryError(422, 42201, "Invalid schema: " + e.Message);
        }
    }

    /// <summary>The version of a subject that holds this schema (POST /subjects/{subject}).</summary>
    internal SubjectVersion Lookup(string subject, RegistrationRequest request, bool includeDeleted)
    {
        Subject found = FindSubject(subject) ?? throw RegistryError.SubjectNotFound(subject);
        string identity = Prepare(request).IdentityKey;
        return found.Versions.FirstOrDefault(v => (includeDeleted || !v.Deleted) && v.Schema.IdentityKey == identity)
            ?? throw new RegistryError(404, 40403, "Schema not found");
    }

    internal SubjectVersion Version(string subject, string version, bool includeDeleted)
    {
        Subject found = FindSubject(subject) ?? throw RegistryError.SubjectNotFound(subject);
        List<SubjectVersion> live = found.Versions.Where(v => includeDeleted || !v.Deleted).ToList();
        if (live.Count == 0)
        {
            throw RegistryError.SubjectNotFound(subject);
        }

        if (version is "latest" or "-1")
        {
            return live[live.Count - 1];
        }

        if (!int.TryParse(version, out int number) || number < 1)
        {
            throw new RegistryError(422, 42202, "The specified version '" + version + "' is not a valid version id. Allowed values are between [1, 2^31-1] and the string \"latest\"");
        }

        return live.FirstOrDefault(v => v.Version == number) ?? throw new RegistryError(404, 40402, "Version " + version + " not found.");
    }

    internal IReadOnlyList<int> DeleteSubject(string subject, bool permanent)
    {
        Subject found = FindSubject(subject) ?? throw RegistryError.SubjectNotFound(subject);
        var versions = found.Versions.Where(v => permanent || !v.Deleted).Select(v => v.Version).ToList();
        if (permanent)
        {
            _subjects.Remove(subject);
        }
        else
        {
            found.Versions.ForEach(v => v.Deleted = true);
        }

        return versions;
    }

    internal int DeleteVersion(string subject, string version, bool permanent)
    {
        SubjectVersion found = Version(subject, version, includeDeleted: permanent);
        if (permanent)
        {
            found.Subject.Versions.Remove(found);
        }
        else
        {
            found.Deleted = true;
        }

        return found.Version;
    }

    internal IEnumerable<SubjectVersion> VersionsOf(StoredSchema schema) =>
        _subjects.Values.SelectMany(s => s.Versions).Where(v => !v.Deleted && v.Schema == schema);

    internal IEnumerable<int> ReferencedBy(SubjectVersion version) =>
        _schemas.Where(s => s.References.Any(r => r.Subject == version.Subject.Name && r.Version == version.Version)).Select(s => s.Id);

    private void ValidateReferences(IReadOnlyList<Reference> references)
    {
        foreach (Reference reference in references)
        {
            Subject? subject = FindSubject(reference.Subject);
            if (subject is null || !subject.Versions.Any(v => v.Version == reference.Version))
            {
                throw new RegistryError(422, 42201, "Invalid schema: reference " + reference.Name + " to " + reference.Subject + " version " + reference.Version + " not found");
            }
        }
    }

    private StoredSchema Intern(PreparedSchema prepared)
    {
        if (_byIdentity.TryGetValue(prepared.IdentityKey, out StoredSchema? schema))
        {
            return schema;
        }

        (int id, Guid guid) = _nextIdentity ?? (MaxId + 1, Guid.NewGuid());
        _nextIdentity = null;
        schema = new StoredSchema(id, guid, prepared);
        _schemas.Add(schema);
        _byId.Add(id, schema);
        _byIdentity.Add(prepared.IdentityKey, schema);
        return schema;
    }

    /// <summary>
    /// A request as the registry keeps it: a Protobuf schema compiled (base64 descriptor or .proto text, its imports
    /// read from its references), normalized when asked, and ready to compare.
    /// </summary>
    private PreparedSchema Prepare(RegistrationRequest request)
    {
        ValidateReferences(request.References);
        if (string.IsNullOrWhiteSpace(request.Schema))
        {
            throw new RegistryError(422, 42201, "Invalid schema: empty");
        }

        if (request.SchemaType != "PROTOBUF")
        {
            return new PreparedSchema(request.SchemaType, request.Schema, null, null, request.References);
        }

        string? text = null;
        if (!RegistrationRequest.TryParseDescriptor(request.Schema, out FileDescriptorProto descriptor))
        {
            text = request.Schema;
            try
            {
                FileDescriptorSet compiled = ProtoSource.Compile(CompiledName, text, ReadReference(request.References));
                descriptor = compiled.File[compiled.File.Count - 1];
            }
            catch (ProtoSyntaxException e)
            {
                throw new RegistryError(422, 42201, "Invalid schema " + BoundedText.Cut(text, 200) + ", details: " + e.Message);
            }
        }

        if (request.Normalize)
        {
            descriptor = ProtoNormalizer.Normalize(descriptor);
            text = ProtoText.Print(descriptor);
        }

        var dependencies = new List<FileDescriptorProto>(WellKnownFiles.All);
        foreach (Reference reference in request.References)
        {
            ProtoSchema? referenced = Version(reference.Subject, reference.Version.ToString(CultureInfo.InvariantCulture), includeDeleted: true).Schema.Compared;
            if (referenced is not null)
            {
                dependencies.Add(referenced.File);
                dependencies.AddRange(referenced.Dependencies);
            }
        }

        try
        {
            return new PreparedSchema(request.SchemaType, text ?? ProtoText.Print(descriptor), descriptor, ProtoSchema.Of(descriptor, dependencies.Distinct()), request.References);
        }
        catch (ArgumentException e)
        {
            throw new RegistryError(422, 42201, "Invalid schema: " + e.Message);
        }
    }

    /// <summary>The name a schema registered as text is compiled under; the real registry calls its files <c>default</c>.</summary>
    private const string CompiledName = "default.proto";

    private Func<string, string?> ReadReference(IReadOnlyList<Reference> references) => name =>
    {
        Reference? reference = references.FirstOrDefault(r => r.Name == name);
        return reference is null ? null : Version(reference.Subject, reference.Version.ToString(CultureInfo.InvariantCulture), includeDeleted: true).Schema.Text;
    };
}

/// <summary>A schema prepared for storing: its text as answered, and for Protobuf its descriptor and comparable form.</summary>
internal sealed class PreparedSchema(string schemaType, string text, FileDescriptorProto? descriptor, ProtoSchema? compared, IReadOnlyList<Reference> references)
{
    internal string SchemaType { get; } = schemaType;

    internal string Text { get; } = text;

    internal FileDescriptorProto? Descriptor { get; } = descriptor;

    internal ProtoSchema? Compared { get; } = compared;

    internal IReadOnlyList<Reference> References { get; } = references;

    /// <summary>What makes two registrations one schema: type, text and references.</summary>
    internal string IdentityKey { get; } = schemaType + "\n" + text + "\n" + string.Join("\n", references.Select(r => r.Name + "|" + r.Subject + "|" + r.Version));
}

/// <summary>A schema as the registry holds it. <see cref="Text"/> is what answers carry by default (for Protobuf, .proto text).</summary>
internal sealed class StoredSchema(int id, Guid guid, PreparedSchema prepared)
{
    internal int Id { get; } = id;

    internal Guid Guid { get; } = guid;

    internal string SchemaType => prepared.SchemaType;

    internal string Text => prepared.Text;

    /// <summary>For Protobuf, the schema as compared with other versions; <see langword="null"/> for Avro and JSON Schema.</summary>
    internal ProtoSchema? Compared => prepared.Compared;

    internal IReadOnlyList<Reference> References => prepared.References;

    internal string IdentityKey => prepared.IdentityKey;

    /// <summary>
    /// The schema in the requested format: <c>serialized</c> is the descriptor in base64 (of a schema registered as
    /// text too, compiled), named <c>default</c> as the real registry names it (so clients must not rely on the file
    /// name); anything else is the text.
    /// </summary>
    internal string Format(string? format)
    {
        if (format != "serialized" || prepared.Descriptor is null)
        {
            return Text;
        }

        FileDescriptorProto renamed = prepared.Descriptor.Clone();
        renamed.Name = "default";
        return renamed.ToByteString().ToBase64();
    }
}

internal sealed class Subject(string name)
{
    internal string Name { get; } = name;

    internal List<SubjectVersion> Versions { get; } = [];
}

internal sealed class SubjectVersion(Subject subject, int version, StoredSchema schema)
{
    internal Subject Subject { get; } = subject;

    internal int Version { get; } = version;

    internal StoredSchema Schema { get; } = schema;

    internal bool Deleted { get; set; }
}

internal sealed record Reference(string Name, string Subject, int Version);

/// <summary>A schema as a client sent it: its type, text (a Protobuf descriptor may come in base64), references, and whether to normalize it.</summary>
internal sealed record RegistrationRequest(string SchemaType, string Schema, IReadOnlyList<Reference> References, bool Normalize)
{
    internal static bool TryParseDescriptor(string schema, out FileDescriptorProto descriptor)
    {
        descriptor = null!;
        try
        {
            byte[] bytes = Convert.FromBase64String(schema);
            descriptor = FileDescriptorProto.Parser.ParseFrom(bytes);
            return descriptor.MessageType.Count + descriptor.EnumType.Count + descriptor.Service.Count > 0 || descriptor.HasPackage || descriptor.HasSyntax;
        }
        catch (FormatException)
        {
            return false;
        }
        catch (InvalidProtocolBufferException)
        {
            return false;
        }
    }
}

/// <summary>An error answer: HTTP status and the registry's JSON <c>error_code</c> and <c>message</c>.</summary>
internal sealed class RegistryError(int status, int errorCode, string message) : Exception(message)
{
    internal int Status { get; } = status;

    internal int ErrorCode { get; } = errorCode;

    internal static RegistryError SubjectNotFound(string subject) => new(404, 40401, "Subject '" + subject + "' not found.");
}
