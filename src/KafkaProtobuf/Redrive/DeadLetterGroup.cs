using System;
using System.Collections.Generic;

namespace KafkaProtobuf.Redrive;

/// <summary>Dead letters that failed the same way: the same error code, component and first line of the error message.</summary>
public sealed class DeadLetterGroup
{
    /// <summary>How much of a message's first line groups and shows: 300 characters.</summary>
    public const int MaxFirstLineChars = 300;

    private readonly List<DeadLetter> _deadLetters = [];

    private DeadLetterGroup(string? errorCode, string? component, string firstLine)
    {
        ErrorCode = errorCode;
        Component = component;
        FirstLine = firstLine;
        DeadLetters = _deadLetters.AsReadOnly();
    }

    /// <summary>The failure's code: a <see cref="FrameErrorCode"/> name or an exception type; <see langword="null"/> when the dead letters carry none.</summary>
    public string? ErrorCode { get; }

    /// <summary>The failure's component: <c>key</c>, <c>value</c> or <c>handler</c>; <see langword="null"/> when unknown.</summary>
    public string? Component { get; }

    /// <summary>The first line of the error message, at most <see cref="MaxFirstLineChars"/> characters (as written: make it inert to show it).</summary>
    public string FirstLine { get; }

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
            var key = (deadLetter.ErrorCode ?? "\0", deadLetter.Component ?? "\0", firstLine);
            if (!byKey.TryGetValue(key, out DeadLetterGroup? group))
            {
                group = new DeadLetterGroup(deadLetter.ErrorCode, deadLetter.Component, firstLine);
                byKey[key] = group;
                groups.Add(group);
            }

            group._deadLetters.Add(deadLetter);
        }

        return groups.AsReadOnly();
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
