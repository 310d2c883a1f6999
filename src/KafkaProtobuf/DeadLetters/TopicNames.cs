namespace KafkaProtobuf.DeadLetters;

/// <summary>What a topic's name can be in Kafka: a header that names anything else names no source.</summary>
internal static class TopicNames
{
    /// <summary>
    /// Whether <paramref name="topic"/> is a name Kafka could have (1 to 249 of <c>[A-Za-z0-9._-]</c>, not <c>.</c> or
    /// <c>..</c>): a forged one is no source, so it is skipped and counted rather than failing a write and stopping a run.
    /// </summary>
    public static bool IsPossible(string? topic)
    {
        if (string.IsNullOrEmpty(topic) || topic!.Length > 249 || topic is "." or "..")
        {
            return false;
        }

        foreach (char c in topic)
        {
            if (!(c is (>= 'a' and <= 'z') or (>= 'A' and <= 'Z') or (>= '0' and <= '9') or '.' or '_' or '-'))
            {
                return false;
            }
        }

        return true;
    }
}
