using System.Collections.Generic;
using Confluent.Kafka;

namespace KafkaProtobuf.AspNetCore.DeadLetters;

/// <summary>What one window read: the partitions' ranges, the records newest first, the cursor of the older window.</summary>
internal sealed record DeadLetterWindow(
    IReadOnlyList<(int Partition, long Start, long End)> Ranges,
    IReadOnlyList<ConsumeResult<byte[], byte[]>> Records,
    WindowCursor? Older,
    bool Exists);
