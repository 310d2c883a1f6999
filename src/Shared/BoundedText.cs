using System;
using System.Globalization;
using System.Text;

namespace KafkaProtobuf;

/// <summary>
/// Text from outside (a registry's error message, an exception's, a record's path) made inert (no control or
/// bidirectional characters) and cut to a length a message, a log line or a header can carry, marked where it was cut.
/// Linked source, compiled into each package that writes messages.
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
    /// <paramref name="text"/> made inert and cut: every control character (C0, DEL, C1; line breaks included, so a
    /// quoted text never starts a log line of its own) written as <c>\x1b</c>, every bidirectional control as
    /// <c>\u202e</c> (a registry, a record or anyone on the way to an http:// registry can put either there, to forge log
    /// lines or rewrite a terminal); then, when that has more than <paramref name="maxChars"/> characters, its start and
    /// <c>… [cut: N characters in all]</c> (N counts the text as given), within <paramref name="maxChars"/>, never
    /// splitting a surrogate pair or an escape. Text with neither and within the length is returned as it is.
    /// </summary>
    public static string Cut(string? text, int maxChars = MessageChars)
    {
        if (text is null)
        {
            return string.Empty;
        }

        int inertLength = InertLength(text, maxChars); // past maxChars only "longer" matters: a long text is not read to its end
        if (inertLength == text.Length && text.Length <= maxChars)
        {
            return text;
        }

        string marker = string.Empty;
        int budget = maxChars;
        if (inertLength > maxChars)
        {
            marker = CutMarker + text.Length.ToString("N0", CultureInfo.InvariantCulture) + " characters in all]";
            budget = maxChars - marker.Length;
            if (budget <= 0)
            {
                return marker.Length <= maxChars ? marker : marker.Substring(0, maxChars);
            }
        }

        var inert = new StringBuilder(Math.Min(inertLength, maxChars));
        for (int i = 0; i < text.Length; i++)
        {
            char c = text[i];
            bool pair = char.IsHighSurrogate(c) && i + 1 < text.Length && char.IsLowSurrogate(text[i + 1]);
            if (inert.Length + WidthOf(c) + (pair ? 1 : 0) > budget)
            {
                break;
            }

            AppendInert(inert, c);
            if (pair)
            {
                inert.Append(text[++i]);
            }
        }

        return inert.Append(marker).ToString();
    }

    /// <summary>C0 controls, DEL and C1 controls.</summary>
    public static bool IsControl(char c) => c < 0x20 || (c >= 0x7f && c <= 0x9f);

    /// <summary>Bidirectional formatting: the embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069) and marks.</summary>
    public static bool IsBidiControl(char c) => c is (>= '\u202a' and <= '\u202e') or (>= '\u2066' and <= '\u2069') or '\u200e' or '\u200f' or '\u061c';

    /// <summary>Appends <paramref name="c"/>, a control character as <c>\x1b</c> and a bidirectional control as <c>\u202e</c>.</summary>
    public static void AppendInert(StringBuilder inert, char c)
    {
        if (IsControl(c))
        {
            inert.Append("\\x").Append(((int)c).ToString("x2", CultureInfo.InvariantCulture));
        }
        else if (IsBidiControl(c))
        {
            inert.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
        }
        else
        {
            inert.Append(c);
        }
    }

    private static int WidthOf(char c) => IsControl(c) ? 4 : IsBidiControl(c) ? 6 : 1;

    /// <summary>The length <paramref name="text"/> has once inert, counted no further than just past <paramref name="cap"/>.</summary>
    private static int InertLength(string text, int cap)
    {
        int length = 0;
        foreach (char c in text)
        {
            length += WidthOf(c);
            if (length > cap)
            {
                break;
            }
        }

        return length;
    }
}
