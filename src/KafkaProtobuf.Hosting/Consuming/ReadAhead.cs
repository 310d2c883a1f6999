using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Consuming;

/// <summary>
/// What a record taken and not yet concluded counts against <see cref="KafkaProtobufConsumerOptions.MaxReadAheadBytes"/>:
/// its key and value bytes (the copy kept for its dead letter), twice when it was also deserialized at consume (the
/// message taken to be as large as its bytes), and a fixed share for the objects around them. A record read when a
/// handler takes it is counted once: of the records kept, only those in handlers hold a message too. A batch counts
/// its records' messages and its copies' buffer as large as it is (<c>RecordBatch.ReadAheadCharge</c>).
/// </summary>
internal static class ReadAhead
{
    /// <summary>Per record: its consume result, message, headers and the scheduler's own record.</summary>
    public const int BytesPerRecord = 512;

    /// <summary>
    /// The charge of <paramref name="records"/> records whose keys and values hold <paramref name="bytes"/> bytes in
    /// all.
    /// </summary>
    /// <param name="bytes">Their keys' and values' bytes.</param>
    /// <param name="records">How many.</param>
    /// <param name="readAtConsume">Whether each also holds its deserialized key and value.</param>
    public static long Charge(long bytes, int records, bool readAtConsume = true) =>
        ((readAtConsume ? 2 : 1) * bytes) + ((long)BytesPerRecord * records);

    /// <summary>The charge of one record with this key and value as written.</summary>
    public static long Charge(byte[]? key, byte[]? value, bool readAtConsume = true) =>
        Charge((key?.Length ?? 0) + (long)(value?.Length ?? 0), 1, readAtConsume);

    /// <summary>
    /// The charge of one record as written (a poison record's bytes, which its exception holds; nothing was
    /// deserialized).
    /// </summary>
    public static long Charge(ConsumeResult<byte[], byte[]> raw) => Charge(raw.Message?.Key, raw.Message?.Value, readAtConsume: false);
}
