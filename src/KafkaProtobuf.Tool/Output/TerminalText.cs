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
            if (controls || BoundedText.IsBidiControl(c))
            {
                BoundedText.AppendInert(safe, c); // the escapes every package's messages use
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
            if (BoundedText.IsBidiControl(c) || (controls && BoundedText.IsControl(c)))
            {
                return true;
            }
        }

        return false;
    }
}
