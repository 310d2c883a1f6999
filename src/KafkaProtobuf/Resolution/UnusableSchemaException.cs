using System;

namespace KafkaProtobuf;

/// <summary>
/// Thrown by a writer's schema source (<see cref="ISchemaFileSource"/>) whose answer for a schema identifier cannot be
/// read as a Protobuf file and will not change: the schema is not Protobuf, its descriptor does not build, a reference
/// is missing, the registry refused the request for this identifier, or the answer is past the source's limits. Unlike
/// any other exception of a source, it is not an outage: the deserializers report the record as bad data
/// (<see cref="InvalidFrameException"/> with <see cref="FrameErrorCode.UnusableWriterSchema"/>, this exception inside),
/// so it is dead-lettered and the stream goes on instead of reading it again for ever.
/// </summary>
public sealed class UnusableSchemaException : Exception
{
    /// <summary>Creates the exception.</summary>
    /// <param name="schemaId">The identifier whose answer cannot be used.</param>
    /// <param name="reason">Why, in words (e.g. "schema 7 is an AVRO schema, not Protobuf"); no secret, no record bytes.</param>
    /// <param name="innerException">What the source met, if anything (a descriptor's validation error, the registry's answer).</param>
    public UnusableSchemaException(SchemaIdentifier schemaId, string reason, Exception? innerException)
        : base(BuildMessage(schemaId, reason), innerException)
    {
        SchemaId = schemaId;
        Reason = BoundedText.Cut(reason, 2 * BoundedText.MessageChars);
    }

    /// <summary>The identifier whose answer cannot be used.</summary>
    public SchemaIdentifier SchemaId { get; }

    /// <summary>Why it cannot be used (at most 2,000 characters; a registry's own message in it at most 1,000).</summary>
    public string Reason { get; }

    private static string BuildMessage(SchemaIdentifier schemaId, string? reason) =>
        "The writer's schema " + schemaId + " cannot be used: " + (reason is null ? "no reason given" : BoundedText.Cut(reason, 2 * BoundedText.MessageChars)) + ".";
}
