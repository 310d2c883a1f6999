using System;
using System.Collections.Generic;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// A schema as the registry answered it: its text (for Protobuf from this client, the serialized
/// <c>FileDescriptorProto</c> in base64), type and references, and, as far as the answer carried them, its id, GUID,
/// subject and version.
/// </summary>
public sealed class RegistrySchema
{
    /// <summary>Creates a schema description.</summary>
    /// <param name="schema">The schema text.</param>
    /// <param name="schemaType"><c>PROTOBUF</c>, <c>AVRO</c> or <c>JSON</c>.</param>
    /// <param name="references">Its references, in order.</param>
    /// <param name="id">Its id, when known.</param>
    /// <param name="schemaGuid">Its GUID, when known.</param>
    /// <param name="subject">The subject it was read from, when known.</param>
    /// <param name="version">Its version in that subject, when known.</param>
    public RegistrySchema(string schema, string schemaType, IReadOnlyList<RegistryReference> references, int? id, Guid? schemaGuid, string? subject, int? version)
    {
        Schema = schema ?? throw new ArgumentNullException(nameof(schema));
        SchemaType = schemaType ?? throw new ArgumentNullException(nameof(schemaType));
        References = references ?? throw new ArgumentNullException(nameof(references));
        Id = id;
        Guid = schemaGuid;
        Subject = subject;
        Version = version;
    }

    /// <summary>The schema text.</summary>
    public string Schema { get; }

    /// <summary><c>PROTOBUF</c>, <c>AVRO</c> or <c>JSON</c>.</summary>
    public string SchemaType { get; }

    /// <summary>Its references (for Protobuf, its imports), in order.</summary>
    public IReadOnlyList<RegistryReference> References { get; }

    /// <summary>The schema id, when the answer carried it.</summary>
    public int? Id { get; }

    /// <summary>The schema GUID, when the answer carried it (registries since Confluent Platform 8.0).</summary>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Naming", "CA1720:Identifier contains type name", Justification = "Schema Registry's own term.")]
    public Guid? Guid { get; }

    /// <summary>The subject, when the answer carried it.</summary>
    public string? Subject { get; }

    /// <summary>The version in <see cref="Subject"/>, when the answer carried it.</summary>
    public int? Version { get; }

    /// <summary>Returns e.g. <c>id 3, orders-value v2, PROTOBUF, 1 reference</c>.</summary>
    /// <returns>A description.</returns>
    public override string ToString() =>
        "id " + (Id?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "?") + (Subject is null ? string.Empty : ", " + Subject + " v" + Version)
        + ", " + SchemaType + ", " + References.Count + " reference" + (References.Count == 1 ? string.Empty : "s");
}
