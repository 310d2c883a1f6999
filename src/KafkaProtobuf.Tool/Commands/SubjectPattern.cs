using System;
using System.Text.RegularExpressions;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>
/// <c>--subject-pattern</c>: a .NET regular expression matched against whole subject names, with a one-second limit
/// per match (subject names come from the registry).
/// </summary>
internal static class SubjectPattern
{
    /// <summary>The pattern as a whole-name matcher.</summary>
    /// <exception cref="ArgumentException">It is not a regular expression (the message says so).</exception>
    public static Regex Parse(string pattern)
    {
        try
        {
            return new Regex("^(?:" + pattern + ")$", RegexOptions.CultureInvariant, TimeSpan.FromSeconds(1));
        }
        catch (ArgumentException e)
        {
            throw new ArgumentException("--subject-pattern is not a regular expression: " + e.Message, e);
        }
    }
}
