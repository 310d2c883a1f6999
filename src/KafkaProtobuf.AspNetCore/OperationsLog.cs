using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.AspNetCore;

/// <summary>The page's log lines: every act, with who did it.</summary>
internal static partial class OperationsLog
{
    [LoggerMessage(EventId = 1, EventName = "RedriveStarted", Level = LogLevel.Information,
        Message = "Redrive {RunId} of '{Topic}' started by {User} (filters: {Filters}); its dry run would write {Planned} records")]
    public static partial void RedriveStarted(ILogger logger, string runId, string user, string topic, string filters, long planned);

    [LoggerMessage(EventId = 2, EventName = "RedriveEnded", Level = LogLevel.Information,
        Message = "Redrive {RunId} of '{Topic}' started by {User} ended {State}: {Written} written, {Skipped} skipped, {Failed} failed{Failure}")]
    private static partial void RedriveEndedCore(ILogger logger, string runId, string user, string topic, string state, long written, long skipped, long failed, string failure);

    public static void RedriveEnded(ILogger logger, string runId, string user, string topic, string state, long written, long skipped, long failed, string? failure) =>
        RedriveEndedCore(logger, runId, user, topic, state, written, skipped, failed, failure is null ? string.Empty : " (" + failure + ")");

    [LoggerMessage(EventId = 3, EventName = "PartitionAction", Level = LogLevel.Information,
        Message = "{User} asked to {Action} {Consumer} {Partition}: {Result}")]
    public static partial void PartitionAction(ILogger logger, string user, string action, string consumer, string partition, string result);

    [LoggerMessage(EventId = 4, EventName = "DryRun", Level = LogLevel.Information,
        Message = "Dry run of a redrive of '{Topic}' by {User} (filters: {Filters}): {WouldWrite} would be written")]
    public static partial void DryRun(ILogger logger, string topic, string user, string filters, long wouldWrite);
}
