using System;
using Confluent.Kafka;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// The subject a schema is registered under, named as Confluent's serializers name it (<c>subject.name.strategy</c>):
/// what <see cref="RegistryProtobufSerializer{T}.SubjectFor"/> answers and the tool registers under.
/// </summary>
public static class SubjectNames
{
    /// <summary>The subject for a record type written to a topic.</summary>
    /// <param name="naming">The strategy.</param>
    /// <param name="topic">The topic (unused by <see cref="SubjectNaming.Record"/>).</param>
    /// <param name="component">Key (<c>-key</c>) or value (<c>-value</c>); used by <see cref="SubjectNaming.Topic"/> only.</param>
    /// <param name="messageFullName">The record's message type, e.g. <c>shop.v1.OrderPlaced</c> (unused by <see cref="SubjectNaming.Topic"/>).</param>
    /// <returns>E.g. <c>orders-value</c>, <c>shop.v1.OrderPlaced</c> or <c>orders-shop.v1.OrderPlaced</c>.</returns>
    /// <exception cref="ArgumentNullException">A name the strategy uses is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="naming"/> is not a defined value.</exception>
    public static string Of(SubjectNaming naming, string topic, MessageComponentType component, string messageFullName)
    {
        return naming switch
        {
            SubjectNaming.Topic => (topic ?? throw new ArgumentNullException(nameof(topic))) + (component == MessageComponentType.Key ? "-key" : "-value"),
            SubjectNaming.Record => messageFullName ?? throw new ArgumentNullException(nameof(messageFullName)),
            SubjectNaming.TopicRecord => (topic ?? throw new ArgumentNullException(nameof(topic))) + "-"
                + (messageFullName ?? throw new ArgumentNullException(nameof(messageFullName))),
            _ => throw new ArgumentOutOfRangeException(nameof(naming), naming, "Topic, Record or TopicRecord."),
        };
    }
}
