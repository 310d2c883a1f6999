namespace KafkaProtobuf.Aspire.Hosting;

/// <summary>A subject an <see cref="InProcessSchemaRegistryResource"/> registers when it starts (<c>WithSubject</c>), with its .proto text.</summary>
public sealed class SchemaSubject
{
    internal SchemaSubject(string name, string protoText)
    {
        Name = name;
        ProtoText = protoText;
    }

    /// <summary>The subject's name, e.g. <c>orders-value</c>.</summary>
    public string Name { get; }

    /// <summary>The .proto text registered under it.</summary>
    public string ProtoText { get; }
}
