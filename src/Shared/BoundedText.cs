using System;
using System.Globalization;

namespace KafkaProtobuf;

/// <summary>
/// Text from outside (a registry's error message, an exception's, a record's path) cut to a length a message, a log
/// line or a header can carry, and marked where it was cut. Linked source, compiled into each package that writes
/// messages.
/// </summary>
internal static class BoundedText
{
    /// <summary>How much of a text from outside a message quotes: 1,000 characters.</summary>
    public const int MessageChars = 1000;

    /// <summary>What ends a text that was cut; the count of characters it had is added.</summary>
    public const string CutMarker = "… [cut: ";

    /// <summary>An exception for a message or a log line: its type and its message, cut (a handler's, a record's or a registry's may be of any length).</summary>
    public static string Describe(Exception e) => e.GetType().Name + ": " + Cut(e.Message);

    /// <summary>
    /// <paramref name="text"/> as it is when it has at most <paramref name="maxChars"/> characters; otherwise its start,
    /// then <c>… [cut: N characters in all]</c>, within <paramref name="maxChars"/> (never splitting a surrogate pair).
    /// </summary>
    public static string Cut(string? text, int maxChars = MessageChars)
    {
        if (text is null || text.Length <= maxChars)
        {
            return text ?? string.Empty;
        }

        string marker = CutMarker + text.Length.ToString("N0", CultureInfo.InvariantCulture) + " characters in all]";
        int keep = maxChars - marker.Length;
        if (keep <= 0)
        {
            return marker.Length <= maxChars ? marker : marker.Substring(0, maxChars);
        }

        if (char.IsHighSurrogate(text[keep - 1]))
        {
            keep--;
        }

#if NET
        return string.Concat(text.AsSpan(0, keep), marker);
#else
        return text.Substring(0, keep) + marker;
#endif
    }
}
