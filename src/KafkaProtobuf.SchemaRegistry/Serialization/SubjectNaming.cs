namespace KafkaProtobuf.SchemaRegistry;

/// <summary>How a <see cref="RegistryProtobufSerializer{T}"/> names the subject it registers under (Confluent's <c>subject.name.strategy</c>).</summary>
public enum SubjectNaming
{
    /// <summary><c>{topic}-value</c> or <c>{topic}-key</c>: one schema lineage per topic and component. The default.</summary>
    Topic = 0,

    /// <summary>The message's full name, e.g. <c>shop.v1.OrderPlaced</c>: one lineage per type, across topics.</summary>
    Record = 1,

    /// <summary><c>{topic}-{full name}</c>: one lineage per type and topic, for several types on one topic.</summary>
    TopicRecord = 2,
}
