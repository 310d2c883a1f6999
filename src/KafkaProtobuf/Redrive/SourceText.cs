using System.Globalization;
using KafkaProtobuf.DeadLetters;

namespace KafkaProtobuf.Redrive;

/// <summary>How a dead letter's source is said: one wording for <see cref="DeadLetter"/> and <see cref="RedrivePlanEntry"/>, which every front-end shows.</summary>
internal static class SourceText
{
    public const string None = "none: no block of this package says where it came from";

    public static string Of(string? topic, int? partition, long? offset, ProvenanceStatus provenance, string? problem)
    {
        if (topic is not null)
        {
            return topic + " [" + (partition?.ToString(CultureInfo.InvariantCulture) ?? "?") + "]" + (offset is long at ? " @" + at.ToString(CultureInfo.InvariantCulture) : string.Empty);
        }

        return provenance == ProvenanceStatus.Unverified && problem is not null ? problem : None;
    }
}
