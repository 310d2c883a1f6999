using System;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using System.Linq;

namespace KafkaProtobuf.Redrive;

/// <summary>
/// Where a window of a dead-letter topic ends, per partition (the offset not included), written
/// <c>0:1200,1:877</c>: a page's "older" link. A partition it does not name is read from its end.
/// </summary>
public sealed class DeadLetterCursor
{
    /// <summary>The most partitions a cursor names: 10,000 (a topic has fewer).</summary>
    public static int MaxPartitions { get; } = 10_000;

    private readonly Dictionary<int, long> _before;

    private DeadLetterCursor(Dictionary<int, long> before) => _before = before;

    /// <summary>The newest window: every partition read from its end.</summary>
    public static DeadLetterCursor Newest { get; } = new(new Dictionary<int, long>());

    /// <summary>A cursor before these offsets.</summary>
    /// <param name="before">Per partition, the offset the window ends before.</param>
    /// <returns>The cursor.</returns>
    /// <exception cref="ArgumentException">A partition or offset is negative, or there are more than <see cref="MaxPartitions"/>.</exception>
    public static DeadLetterCursor Before(IEnumerable<KeyValuePair<int, long>> before)
    {
        var offsets = new Dictionary<int, long>();
        foreach (KeyValuePair<int, long> pair in before ?? throw new ArgumentNullException(nameof(before)))
        {
            if (pair.Key < 0 || pair.Value < 0 || offsets.Count >= MaxPartitions)
            {
                throw new ArgumentException("Partitions and offsets are 0 or more, at most " + MaxPartitions + " partitions.", nameof(before));
            }

            offsets[pair.Key] = pair.Value;
        }

        return new DeadLetterCursor(offsets);
    }

    /// <summary>Reads a cursor written by <see cref="ToString"/>; empty or null text is <see cref="Newest"/>.</summary>
    /// <param name="text">The text, from a page's link (hostile input: anything at all).</param>
    /// <param name="cursor">The cursor when the text is one; otherwise <see langword="null"/>.</param>
    /// <returns>Whether the text is a cursor.</returns>
    public static bool TryParse(string? text, [NotNullWhen(true)] out DeadLetterCursor? cursor)
    {
        cursor = null;
        if (string.IsNullOrEmpty(text))
        {
            cursor = Newest;
            return true;
        }

        var parsed = new Dictionary<int, long>();
        foreach (string pair in text!.Split(','))
        {
            string[] parts = pair.Split(':');
            if (parts.Length != 2
                || parsed.Count >= MaxPartitions
                || !int.TryParse(parts[0], NumberStyles.None, CultureInfo.InvariantCulture, out int partition)
                || !long.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out long offset)
                || parsed.ContainsKey(partition))
            {
                return false;
            }

            parsed[partition] = offset;
        }

        cursor = new DeadLetterCursor(parsed);
        return true;
    }

    /// <summary>The offset the window ends before in a partition, or <see langword="null"/>: its end.</summary>
    /// <param name="partition">The partition.</param>
    /// <returns>The offset, or null.</returns>
    public long? OffsetIn(int partition) => _before.TryGetValue(partition, out long offset) ? offset : null;

    /// <summary>The cursor as text, <c>partition:offset</c> pairs by partition: what <see cref="TryParse"/> reads.</summary>
    /// <returns>The text (empty for <see cref="Newest"/>).</returns>
    public override string ToString() =>
        string.Join(",", _before.OrderBy(p => p.Key).Select(p => p.Key.ToString(CultureInfo.InvariantCulture) + ":" + p.Value.ToString(CultureInfo.InvariantCulture)));
}
