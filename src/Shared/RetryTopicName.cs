using System;
using System.Globalization;

namespace KafkaProtobuf;

/// <summary>
/// The name of a retry topic, <c>{topic}.retry.{tier}</c>, and its reading back: one rule for the hosted consumer's
/// retry tiers and for reading a dead letter's hops. Linked source, compiled into the core and hosting packages.
/// </summary>
internal static class RetryTopicName
{
    private const string Marker = ".retry.";

    /// <summary><c>{topic}.retry.{tier}</c>.</summary>
    public static string Of(string topic, int tier) => topic + Marker + tier.ToString(CultureInfo.InvariantCulture);

    /// <summary>
    /// The first topic and tier of a name <c>{topic}.retry.{n}</c>, n from 1 to <paramref name="maxTier"/> written
    /// without leading zeros (as <see cref="Of"/> writes it); null for any other name.
    /// </summary>
    public static (string Topic, int Tier)? Parse(string? name, int maxTier = int.MaxValue)
    {
        if (name is null)
        {
            return null;
        }

        int at = name.LastIndexOf(Marker, StringComparison.Ordinal);
        int digits = name.Length - at - Marker.Length;
        if (at <= 0 || digits < 1 || digits > 9)
        {
            return null;
        }

        int tier = 0;
        for (int i = at + Marker.Length; i < name.Length; i++)
        {
            if (name[i] is < '0' or > '9')
            {
                return null;
            }

            tier = (tier * 10) + (name[i] - '0');
        }

        string first = name.Substring(0, at);
        return tier >= 1 && tier <= maxTier && Of(first, tier) == name ? (first, tier) : null;
    }
}
