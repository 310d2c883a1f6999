using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Scheduling;

/// <summary>
/// What a record taken and not yet concluded counts against <see cref="KafkaProtobufConsumerOptions.MaxReadAheadBytes"/>:
/// its key and value bytes twice (the copy kept for a dead letter, and the deserialized message, taken to be as large)
/// and a fixed share for the objects around them.
/// </summary>
internal static class ReadAhead
{
    /// <summary>Per record: its consume result, message, headers and the scheduler's own record.</summary>
    public const int BytesPerRecord = 512;

    /// <summary>The charge of <paramref name="records"/> records whose keys and values hold <paramref name="bytes"/> bytes in all.</summary>
    public static long Charge(long bytes, int records) => (2 * bytes) + ((long)BytesPerRecord * records);

    /// <summary>The charge of one record with this key and value as written.</summary>
    public static long Charge(byte[]? key, byte[]? value) => Charge((key?.Length ?? 0) + (long)(value?.Length ?? 0), 1);

    /// <summary>The charge of one record as written (a poison record's bytes, which its exception holds).</summary>
    public static long Charge(ConsumeResult<byte[], byte[]> raw) => Charge(raw.Message?.Key, raw.Message?.Value);
}
