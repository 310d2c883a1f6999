using System;
using System.Collections.Generic;
using System.Linq;
using Google.Protobuf;
using Google.Protobuf.Reflection;

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

    /// <summary>What compatibility checks answer: the real registry would compare schemas; tests choose.</summary>
    internal bool Compatible { get; set; } = true;

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

    /// <summary>Registers (or finds) a schema under a subject; returns its version, or throws a <see cref="RegistryError"/>.</summary>
    internal SubjectVersion Register(string subject, RegistrationRequest request)
    {
        ValidateReferences(request.References);
        StoredSchema schema = Intern(request);
        if (!_subjects.TryGetValue(subject, out Subject? existing))
        {
            existing = new Subject(subject);
            _subjects.Add(subject, existing);
        }

        SubjectVersion? same = existing.Versions.FirstOrDefault(v => !v.Deleted && v.Schema == schema);
        if (same is not null)
        {
            return same; // idempotent: the same schema in a subject keeps its id and version
        }

        if (existing.Versions.Any(v => !v.Deleted) && !Compatible)
        {
            throw new RegistryError(409, 40901, "Schema being registered is incompatible with an earlier schema for subject \"" + subject + "\"");
        }

        var version = new SubjectVersion(existing, existing.Versions.Count == 0 ? 1 : existing.Versions.Max(v => v.Version) + 1, schema);
        existing.Versions.Add(version);
        return version;
    }

    /// <summary>The version of a subject that holds this schema (POST /subjects/{subject}).</summary>
    internal SubjectVersion Lookup(string subject, RegistrationRequest request, bool includeDeleted)
    {
        Subject found = FindSubject(subject) ?? throw RegistryError.SubjectNotFound(subject);
        string identity = Identity(request);
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

    private StoredSchema Intern(RegistrationRequest request)
    {
        string identity = Identity(request);
        if (_byIdentity.TryGetValue(identity, out StoredSchema? schema))
        {
            return schema;
        }

        (int id, Guid guid) = _nextIdentity ?? (MaxId + 1, Guid.NewGuid());
        _nextIdentity = null;
        schema = new StoredSchema(id, guid, request.SchemaType, request.Text, request.Serialized, request.References, identity);
        _schemas.Add(schema);
        _byId.Add(id, schema);
        _byIdentity.Add(identity, schema);
        return schema;
    }

    private static string Identity(RegistrationRequest request) =>
        request.SchemaType + "\n" + request.Text + "\n" + string.Join("\n", request.References.Select(r => r.Name + "|" + r.Subject + "|" + r.Version));
}

/// <summary>A schema as the registry holds it. <see cref="Text"/> is what answers carry by default (for Protobuf, .proto text).</summary>
internal sealed class StoredSchema(int id, Guid guid, string schemaType, string text, FileDescriptorProto? serialized, IReadOnlyList<Reference> references, string identityKey)
{
    internal int Id { get; } = id;

    internal Guid Guid { get; } = guid;

    internal string SchemaType { get; } = schemaType;

    internal string Text { get; } = text;

    /// <summary>The descriptor, for Protobuf schemas registered as one (base64); <see langword="null"/> for .proto text.</summary>
    internal FileDescriptorProto? Serialized { get; } = serialized;

    internal IReadOnlyList<Reference> References { get; } = references;

    internal string IdentityKey { get; } = identityKey;

    /// <summary>
    /// The schema in the requested format: <c>serialized</c> is the descriptor in base64, named <c>default</c> as the
    /// real registry names it (so clients must not rely on the file name); anything else is the text.
    /// </summary>
    internal string Format(string? format)
    {
        if (format != "serialized" || SchemaType != "PROTOBUF")
        {
            return Text;
        }

        if (Serialized is null)
        {
            throw new RegistryError(422, 42201, "This in-process registry keeps a schema registered as .proto text as text; register the serialized descriptor to ask for format=serialized.");
        }

        FileDescriptorProto renamed = Serialized.Clone();
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

/// <summary>A schema as a client sent it, already parsed (a Protobuf descriptor in base64 is printed as .proto text).</summary>
internal sealed record RegistrationRequest(string SchemaType, string Text, FileDescriptorProto? Serialized, IReadOnlyList<Reference> References)
{
    internal static RegistrationRequest Parse(string schemaType, string schema, IReadOnlyList<Reference> references)
    {
        if (schemaType == "PROTOBUF" && TryParseDescriptor(schema, out FileDescriptorProto? descriptor))
        {
            return new RegistrationRequest(schemaType, ProtoText.Print(descriptor), descriptor, references);
        }

        if (string.IsNullOrWhiteSpace(schema))
        {
            throw new RegistryError(422, 42201, "Invalid schema: empty");
        }

        return new RegistrationRequest(schemaType, schema, null, references);
    }

    private static bool TryParseDescriptor(string schema, out FileDescriptorProto descriptor)
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
