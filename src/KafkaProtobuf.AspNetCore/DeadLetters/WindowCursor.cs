using System.Collections.Generic;
using System.Globalization;
using System.Linq;

namespace KafkaProtobuf.AspNetCore.DeadLetters;

/// <summary>
/// Where the next, older window of a dead-letter topic ends, per partition: <c>0:1200,1:877</c> (partition:offset, the
/// offset not included). A partition it does not name is read from its end.
/// </summary>
internal sealed class WindowCursor(IReadOnlyDictionary<int, long> before)
{
    public static WindowCursor Newest { get; } = new(new Dictionary<int, long>());

    public long? Before(int partition) => before.TryGetValue(partition, out long offset) ? offset : null;

    /// <summary>Reads a cursor; false when the text is not one (the page never sends such text).</summary>
    public static bool TryParse(string? text, out WindowCursor cursor)
    {
        cursor = Newest;
        if (string.IsNullOrEmpty(text))
        {
            return true;
        }

        var parsed = new Dictionary<int, long>();
        foreach (string pair in text!.Split(','))
        {
            string[] parts = pair.Split(':');
            if (parts.Length != 2
                || !int.TryParse(parts[0], NumberStyles.None, CultureInfo.InvariantCulture, out int partition)
                || !long.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out long offset)
                || !parsed.TryAdd(partition, offset))
            {
                return false;
            }
        }

        cursor = new WindowCursor(parsed);
        return true;
    }

    public override string ToString() =>
        string.Join(",", before.OrderBy(p => p.Key).Select(p => p.Key.ToString(CultureInfo.InvariantCulture) + ":" + p.Value.ToString(CultureInfo.InvariantCulture)));
}
