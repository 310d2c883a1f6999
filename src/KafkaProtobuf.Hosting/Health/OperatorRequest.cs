using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Health;

/// <summary>What an operator asked of one partition.</summary>
internal enum OperatorAction
{
    Pause,
    Resume,
    Rewind,
}

/// <summary>
/// One operator request, made on any thread, applied by the consumer's loop thread (which alone may pause, resume and
/// seek) or withdrawn by its caller before the loop took it: never both.
/// </summary>
internal sealed class OperatorRequest(OperatorAction action, TopicPartition partition, long offset)
{
    private const int Queued = 0;
    private const int Taken = 1;
    private const int Withdrawn = 2;

    private readonly TaskCompletionSource<PartitionActionResult> _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _state;

    public OperatorAction Action { get; } = action;

    public TopicPartition Partition { get; } = partition;

    /// <summary>Where a rewind goes.</summary>
    public long Offset { get; } = offset;

    public Task<PartitionActionResult> Done => _done.Task;

    /// <summary>The loop takes it; false when its caller withdrew it first.</summary>
    public bool TryTake() => Interlocked.CompareExchange(ref _state, Taken, Queued) == Queued;

    /// <summary>The caller gives up waiting; false when the loop already took it (its result follows soon).</summary>
    public bool TryWithdraw() => Interlocked.CompareExchange(ref _state, Withdrawn, Queued) == Queued;

    public void Complete(PartitionActionResult result) => _done.TrySetResult(result);
}
