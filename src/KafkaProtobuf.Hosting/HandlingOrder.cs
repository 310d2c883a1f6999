namespace KafkaProtobuf.Hosting;

/// <summary>In partition-parallel mode, which records of a partition are handled one after another.</summary>
public enum HandlingOrder
{
    /// <summary>All of them: a partition's records are handled one at a time, in the partition's order (the default).</summary>
    Partition = 0,

    /// <summary>
    /// Those with equal keys (the key's bytes as written): records with different keys may be handled at once even
    /// within one partition. Keys are spread over a fixed number of sequences per partition, so two keys may share
    /// one and wait for each other; null keys count as one key. Offsets are still stored in the partition's order.
    /// </summary>
    Key = 1,
}
