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

    /// <summary>Whether a record header may be copied into the envelope under its own name.</summary>
    public static bool MayCopy(string key) => !key.StartsWith(Prefix, System.StringComparison.Ordinal);
}
