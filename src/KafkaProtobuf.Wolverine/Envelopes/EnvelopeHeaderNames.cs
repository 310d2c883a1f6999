using System;
using System.Collections.Frozen;
using System.Linq;
using Wolverine;
using Wolverine.Transports;

namespace KafkaProtobuf.Wolverine.Envelopes;

/// <summary>
/// The envelope headers this package keeps for itself. A record's own headers are never copied into an envelope under
/// this prefix, so none of them can pose as one of these (the same rule as the dead-letter headers: what steers a
/// record written again comes from the package, never from the record).
/// </summary>
internal static class EnvelopeHeaderNames
{
    /// <summary>The prefix no record header is copied under.</summary>
    public const string Prefix = "kafkaprotobuf.wolverine.";

    /// <summary>The record's headers exactly as read (<see cref="RecordHeaders"/>): what a dead letter carries.</summary>
    public const string RecordHeaders = Prefix + "record-headers";

    /// <summary>Present when the record's key was null (Wolverine's envelope then has no key, and would write its id in its place).</summary>
    public const string NullKey = Prefix + "null-key";

    /// <summary>Before the name of a header the serializer wrote (a binary schema id), its value base64: the mapper writes it as bytes.</summary>
    public const string Outgoing = Prefix + "out.";

    /// <summary>
    /// Names of Wolverine's that a record's own header must not set in an envelope: the ones Wolverine maps to an
    /// envelope's properties (a reply address, a tenant, a saga, an id) and the failure it stamps on a dead letter.
    /// </summary>
    private static readonly FrozenSet<string> Wolverines = new string[]
    {
        EnvelopeConstants.SourceKey, EnvelopeConstants.MessageTypeKey, EnvelopeConstants.ReplyUriKey, EnvelopeConstants.ContentTypeKey,
        EnvelopeConstants.CorrelationIdKey, EnvelopeConstants.SagaIdKey, EnvelopeConstants.ConversationIdKey, EnvelopeConstants.DestinationKey,
        EnvelopeConstants.AcceptedContentTypesKey, EnvelopeConstants.IdKey, EnvelopeConstants.ParentIdKey, EnvelopeConstants.GroupIdKey,
        EnvelopeConstants.DeduplicationIdKey, EnvelopeConstants.ReplyRequestedKey, EnvelopeConstants.AckRequestedKey, EnvelopeConstants.IsResponseKey,
        EnvelopeConstants.ExecutionTimeKey, EnvelopeConstants.KeepUntilKey, EnvelopeConstants.AttemptsKey, EnvelopeConstants.DeliverByKey,
        EnvelopeConstants.TenantIdKey, EnvelopeConstants.TopicNameKey, EnvelopeConstants.UserNameKey, EnvelopeConstants.PartitionKey,
    }.Concat(DeadLetterQueueConstants.DiagnosticHeaders).ToFrozenSet(StringComparer.Ordinal);

    /// <summary>
    /// Whether a record header may be copied into the envelope under its own name: not under this package's prefix, and
    /// not one of Wolverine's own (the record's headers stay readable through <c>RecordHeaders()</c>, exactly).
    /// </summary>
    public static bool MayCopy(string key) => !key.StartsWith(Prefix, StringComparison.Ordinal) && !Wolverines.Contains(key);
}
