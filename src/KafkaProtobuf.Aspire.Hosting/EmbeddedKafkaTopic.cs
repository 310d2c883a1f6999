namespace KafkaProtobuf.Aspire.Hosting;

/// <summary>A topic an <see cref="EmbeddedKafkaResource"/> creates when it starts (<c>WithTopic</c>).</summary>
public sealed class EmbeddedKafkaTopic
{
    internal EmbeddedKafkaTopic(string name, int partitions)
    {
        Name = name;
        Partitions = partitions;
    }

    /// <summary>The topic's name.</summary>
    public string Name { get; }

    /// <summary>How many partitions it has.</summary>
    public int Partitions { get; }
}
