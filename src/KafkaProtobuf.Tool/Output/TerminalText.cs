using System.Globalization;
using System.Text;

namespace KafkaProtobuf.Tool.Output;

/// <summary>
/// Text from records, schemas and registries made inert for a terminal: such text can carry escape sequences that
/// rewrite the operator's screen (ESC, CSI) or bidirectional controls that reorder what is shown, and anyone on the way
/// to an http:// registry can put them there.
/// </summary>
internal static class TerminalText
{
    /// <summary>
    /// <paramref name="text"/> with every control character (C0, DEL, C1; line breaks included: a field never spans lines)
    /// written as <c>\x1b</c> and every bidirectional control as <c>\u202e</c>.
    /// </summary>
    public static string Neutralize(string? text) => string.IsNullOrEmpty(text) ? string.Empty : Escape(text!, controls: true);

    /// <summary>
    /// JSON text with its bidirectional controls escaped (<c>\u202e</c>); the tool's JSON encoder escapes control
    /// characters already. Such characters can only stand inside strings, where the escape means the same.
    /// </summary>
    public static string EscapeBidi(string json) => Escape(json, controls: false);

    /// <summary>The text with its bidirectional controls, and with <paramref name="controls"/> its control characters, escaped; itself when it has none.</summary>
    private static string Escape(string text, bool controls)
    {
        if (!NeedsWork(text, controls))
        {
            return text;
        }

        var safe = new StringBuilder(text.Length + 16);
        foreach (char c in text)
        {
            if (controls && IsControl(c))
            {
                safe.Append("\\x").Append(((int)c).ToString("x2", CultureInfo.InvariantCulture));
            }
            else if (IsBidiControl(c))
            {
                safe.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
            }
            else
            {
                safe.Append(c);
            }
        }

        return safe.ToString();
    }

    private static bool NeedsWork(string text, bool controls)
    {
        foreach (char c in text)
        {
            if (IsBidiControl(c) || (controls && IsControl(c)))
            {
                return true;
            }
        }

        return false;
    }

    private static bool IsControl(char c) => c < 0x20 || (c >= 0x7f && c <= 0x9f);

    /// <summary>Bidirectional formatting: the embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069) and marks.</summary>
    private static bool IsBidiControl(char c) => c is (>= '\u202a' and <= '\u202e') or (>= '\u2066' and <= '\u2069') or '\u200e' or '\u200f' or '\u061c';
}
