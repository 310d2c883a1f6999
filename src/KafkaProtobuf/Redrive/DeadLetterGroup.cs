using System;
using System.Collections.Generic;
using System.Text;

namespace KafkaProtobuf.Redrive;

/// <summary>
/// Dead letters that failed the same way: the same error code, component and kind of message (its first line with the
/// parts that differ from record to record set aside, <see cref="Pattern"/>), with a count and an example.
/// </summary>
public sealed class DeadLetterGroup
{
    /// <summary>How much of a message's first line groups and shows: 300 characters.</summary>
    public static int MaxFirstLineChars { get; } = 300;

    private readonly List<DeadLetter> _deadLetters = [];

    private DeadLetterGroup(string? errorCode, string? component, string pattern, string example)
    {
        ErrorCode = errorCode;
        Component = component;
        Pattern = pattern;
        Example = example;
        DeadLetters = _deadLetters.AsReadOnly();
    }

    /// <summary>The failure's code: a <see cref="FrameErrorCode"/> name or an exception type; <see langword="null"/> when the dead letters carry none.</summary>
    public string? ErrorCode { get; }

    /// <summary>The failure's component: <c>key</c>, <c>value</c> or <c>handler</c>; <see langword="null"/> when unknown.</summary>
    public string? Component { get; }

    /// <summary>
    /// The kind of message: its first line (at most <see cref="MaxFirstLineChars"/> characters) with what differs from
    /// record to record set aside, quoted text as <c>'…'</c>, numbers and identifiers as <c>#</c>:
    /// <c>reading # of reject-# is marked REJECT</c> (as written: make it inert to show it).
    /// </summary>
    public string Pattern { get; }

    /// <summary>The first line of its first dead letter's message, at most <see cref="MaxFirstLineChars"/> characters (as written: make it inert to show it).</summary>
    public string Example { get; }

    /// <summary>The group's dead letters, in the order given.</summary>
    public IReadOnlyList<DeadLetter> DeadLetters { get; }

    /// <summary>Groups dead letters by failure: groups in the order of their first dead letter (newest first, given newest first).</summary>
    /// <param name="deadLetters">The dead letters, e.g. a window's.</param>
    /// <returns>The groups.</returns>
    public static IReadOnlyList<DeadLetterGroup> Of(IEnumerable<DeadLetter> deadLetters)
    {
        if (deadLetters is null)
        {
            throw new ArgumentNullException(nameof(deadLetters));
        }

        var groups = new List<DeadLetterGroup>();
        var byKey = new Dictionary<(string, string, string), DeadLetterGroup>();
        foreach (DeadLetter deadLetter in deadLetters)
        {
            string firstLine = FirstLineOf(deadLetter.ErrorMessage);
            string pattern = PatternOf(firstLine);
            var key = (deadLetter.ErrorCode ?? "\0", deadLetter.Component ?? "\0", pattern);
            if (!byKey.TryGetValue(key, out DeadLetterGroup? group))
            {
                group = new DeadLetterGroup(deadLetter.ErrorCode, deadLetter.Component, pattern, firstLine);
                byKey[key] = group;
                groups.Add(group);
            }

            group._deadLetters.Add(deadLetter);
        }

        return groups.AsReadOnly();
    }

    /// <summary>
    /// A line with its record-specific parts set aside: text in quotes (opened after a space or a bracket, closed before
    /// one, on the line) becomes <c>'…'</c>; in a word, each part between dashes or underscores that is eight or more hex
    /// digits with a digit among them (a GUID's, a trace id) becomes <c>#</c>, and every other run of digits does
    /// (<c>reject-99</c>: <c>reject-#</c>; <c>order-3f2a…e1</c>: <c>order-#</c>).
    /// </summary>
    internal static string PatternOf(string line)
    {
        var pattern = new StringBuilder(line.Length);
        int i = 0;
        while (i < line.Length)
        {
            char c = line[i];
            if (IsOpeningQuote(line, i) && ClosingQuote(line, i) is int close)
            {
                pattern.Append(c).Append('…').Append(line[close]);
                i = close + 1;
            }
            else if (IsWordChar(c))
            {
                int end = i;
                while (end < line.Length && IsWordChar(line[end]))
                {
                    end++;
                }

                AppendWord(pattern, line, i, end);
                i = end;
            }
            else
            {
                pattern.Append(c);
                i++;
            }
        }

        return pattern.ToString();
    }

    /// <summary>A word, segment by segment between its dashes and underscores: an identifier as <c>#</c>, other digits as <c>#</c>.</summary>
    private static void AppendWord(StringBuilder pattern, string line, int start, int end)
    {
        int segment = start;
        for (int i = start; i <= end; i++)
        {
            if (i == end || line[i] is '-' or '_')
            {
                AppendSegment(pattern, line, segment, i);
                if (i < end)
                {
                    pattern.Append(line[i]);
                }

                segment = i + 1;
            }
        }
    }

    private static void AppendSegment(StringBuilder pattern, string line, int start, int end)
    {
        bool hasDigit = false, hexOnly = true;
        for (int i = start; i < end; i++)
        {
            char c = line[i];
            hasDigit |= c is >= '0' and <= '9';
            hexOnly &= c is (>= '0' and <= '9') or (>= 'a' and <= 'f') or (>= 'A' and <= 'F');
        }

        if (hasDigit && hexOnly && end - start >= 8)
        {
            pattern.Append('#'); // a hex identifier (a GUID's part, a trace id)
            return;
        }

        for (int i = start; i < end; i++)
        {
            if (line[i] is >= '0' and <= '9')
            {
                while (i + 1 < end && line[i + 1] is >= '0' and <= '9')
                {
                    i++;
                }

                pattern.Append('#');
            }
            else
            {
                pattern.Append(line[i]);
            }
        }
    }

    private static bool IsWordChar(char c) => char.IsLetterOrDigit(c) || c is '_' or '-';

    private static bool IsOpeningQuote(string line, int at) =>
        line[at] is '\'' or '"' or '`' or '‘' or '“' && (at == 0 || line[at - 1] is ' ' or '(' or '[' or '{' or ':' or '=' or ',');

    /// <summary>The quote that closes the one at <paramref name="open"/>, before a space, a punctuation mark or the line's end.</summary>
    private static int? ClosingQuote(string line, int open)
    {
        char closing = line[open] switch { '‘' => '’', '“' => '”', char same => same };
        for (int i = open + 1; i < line.Length; i++)
        {
            if (line[i] == closing && (i + 1 == line.Length || line[i + 1] is ' ' or ')' or ']' or '}' or ',' or '.' or ';' or ':' or '!' or '?'))
            {
                return i;
            }
        }

        return null;
    }

    private static string FirstLineOf(string? message)
    {
        if (message is null)
        {
            return string.Empty;
        }

        int end = message.IndexOfAny(['\r', '\n']);
        string line = end < 0 ? message : message.Substring(0, end);
        return line.Length <= MaxFirstLineChars ? line : line.Substring(0, char.IsHighSurrogate(line[MaxFirstLineChars - 1]) ? MaxFirstLineChars - 1 : MaxFirstLineChars);
    }
}
