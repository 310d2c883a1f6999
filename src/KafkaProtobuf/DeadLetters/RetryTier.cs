using System;
using System.Globalization;

namespace KafkaProtobuf.DeadLetters;

/// <summary>
/// A retry tier, as the configuration of the consumer that reads or writes it names it: tier <see cref="Tier"/> of the
/// records first read from <see cref="Topic"/>, whose topic is <see cref="Name"/> (<c>{topic}.retry.{tier}</c>). A writer
/// says it read a record from one of its tiers with this; no reader infers a tier from a topic's name.
/// </summary>
public sealed class RetryTier : IEquatable<RetryTier>
{
    /// <summary>A tier of a topic.</summary>
    /// <param name="topic">The topic its records were first read from.</param>
    /// <param name="tier">The tier, from 1.</param>
    /// <exception cref="ArgumentException"><paramref name="topic"/> is null or empty.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="tier"/> is below 1.</exception>
    public RetryTier(string topic, int tier)
    {
        if (string.IsNullOrEmpty(topic))
        {
            throw new ArgumentException("A retry tier needs the topic its records were first read from.", nameof(topic));
        }

        if (tier < 1)
        {
            throw new ArgumentOutOfRangeException(nameof(tier), tier, "Tiers count from 1.");
        }

        Topic = topic;
        Tier = tier;
        Name = RetryTopicName.Of(topic, tier);
    }

    /// <summary>The topic its records were first read from.</summary>
    public string Topic { get; }

    /// <summary>The tier, from 1.</summary>
    public int Tier { get; }

    /// <summary>The tier's topic: <c>{topic}.retry.{tier}</c>.</summary>
    public string Name { get; }

    /// <summary>The next tier of the same topic.</summary>
    /// <returns>Tier <see cref="Tier"/> + 1.</returns>
    public RetryTier Next() => new(Topic, Tier + 1);

    /// <inheritdoc/>
    public bool Equals(RetryTier? other) => other is not null && other.Tier == Tier && string.Equals(other.Topic, Topic, StringComparison.Ordinal);

    /// <inheritdoc/>
    public override bool Equals(object? obj) => Equals(obj as RetryTier);

    /// <inheritdoc/>
    public override int GetHashCode() => StringComparer.Ordinal.GetHashCode(Topic) ^ Tier;

    /// <summary>The tier's topic and what it is: <c>orders.retry.2 (tier 2 of orders)</c>.</summary>
    /// <returns>The text.</returns>
    public override string ToString() => Name + " (tier " + Tier.ToString(CultureInfo.InvariantCulture) + " of " + Topic + ")";
}
