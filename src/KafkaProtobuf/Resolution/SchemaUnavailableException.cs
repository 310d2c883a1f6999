using System;
using Confluent.Kafka;

namespace KafkaProtobuf;

/// <summary>
/// The writer's schema of a record could not be obtained because its source failed: the
/// <see cref="WriterSchemaOptions.Source"/> threw (a schema registry timed out, answered 5xx, refused the connection). The record is <em>not</em> bad data: it
/// must not be dead-lettered, and nothing past it may be committed. Consume it again once the source is back.
/// </summary>
/// <remarks>
/// Inside a Confluent.Kafka consumer it arrives wrapped in a <c>ConsumeException</c> for deserialization, like bad
/// data; <see cref="ConsumeExceptionExtensions.IsSchemaUnavailable"/> tells it apart and
/// <see cref="ConsumeExceptionExtensions.IsDeserializationFailure"/> returns <see langword="false"/> for it. The source's own
/// exception is the <see cref="Exception.InnerException"/>. Not counted as a failed record by the metrics.
/// </remarks>
public sealed class SchemaUnavailableException : Exception
{
    /// <summary>Creates the exception.</summary>
    /// <param name="schemaId">The identifier whose schema could not be obtained.</param>
    /// <param name="component">The component being read (key or value).</param>
    /// <param name="topic">The record's topic, when known.</param>
    /// <param name="innerException">What the schema source threw.</param>
    public SchemaUnavailableException(SchemaIdentifier schemaId, MessageComponentType component, string? topic, Exception innerException)
        : base(BuildMessage(schemaId, component, topic, innerException), innerException)
    {
        SchemaId = schemaId;
        Component = component;
        Topic = topic;
    }

    /// <summary>The identifier whose schema could not be obtained.</summary>
    public SchemaIdentifier SchemaId { get; }

    /// <summary>The component being read: key or value.</summary>
    public MessageComponentType Component { get; }

    /// <summary>The record's topic, when known.</summary>
    public string? Topic { get; }

    /// <summary>
    /// Whether the source refused this client's credentials (it threw an <see cref="UnauthorizedAccessException"/>, as
    /// <c>RegistryClient</c> does for a 401 or a token endpoint's refusal): waiting will not bring the schema back, a
    /// person must fix the credentials. The hosted consumer stops on it. (A 403, credentials that may not read this one
    /// schema, is not: the record waits, read again, until the permission is granted.)
    /// </summary>
    public bool IsAccessDenied => InnerException is UnauthorizedAccessException;

    private static string BuildMessage(SchemaIdentifier schemaId, MessageComponentType component, string? topic, Exception? inner)
    {
        string what = component == MessageComponentType.Key ? "key" : "value";
        string of = string.IsNullOrEmpty(topic) ? string.Empty : " of topic '" + topic + "'";
        return "The writer's schema (" + schemaId + ") of the " + what + of + " could not be obtained: "
            + (inner is null ? "the schema source failed" : BoundedText.Cut(inner.Message, 2 * BoundedText.MessageChars))
            + ". The record is not bad data: consume it again once the schema source is back.";
    }
}
