using System;
using System.Collections.Generic;
using System.Globalization;

namespace KafkaProtobuf;

/// <summary>
/// The one way the packages check an options object: every rule it breaks is collected (not only the first), each
/// written the same way (<c>Name is value; it must be rule.</c>, or a contradiction between options, said plainly), and
/// thrown together where the options are taken: <see cref="ArgumentOutOfRangeException"/> from a constructor when every
/// problem is a value out of its range (<see cref="ArgumentException"/> when any is a contradiction), its
/// <see cref="ArgumentException.ParamName"/> the options parameter; <see cref="InvalidOperationException"/> when a host
/// starts what the options describe. Linked source, compiled into each package that takes options.
/// </summary>
internal sealed class OptionProblems
{
    private readonly string _owner;
    private List<string>? _problems;
    private bool _contradiction;

    /// <param name="owner">What the options belong to, leading the message (a type, or "The KafkaProtobuf consumer 'orders'").</param>
    public OptionProblems(string owner) => _owner = owner;

    /// <summary>Whether any rule is broken.</summary>
    public bool Any => _problems is { Count: > 0 };

    /// <summary>The message: the owner, then each problem.</summary>
    public string Message => _problems is null ? _owner + ": the options are valid."
        : _owner + ": " + (_problems.Count == 1 ? _problems[0] : _problems.Count.ToString(CultureInfo.InvariantCulture) + " options are wrong. " + string.Join(" ", _problems));

    /// <summary>Unless <paramref name="holds"/>: <c>{option} is {value}; it must be {rule}.</c></summary>
    public OptionProblems Require(bool holds, string option, object? value, string rule)
    {
        if (!holds)
        {
            (_problems ??= []).Add(option + " is " + Show(value) + "; it must be " + rule + ".");
        }

        return this;
    }

    /// <summary>Unless <paramref name="value"/> is one of <paramref name="allowed"/>: <c>{option} is {value}; it must be A or B.</c></summary>
    public OptionProblems RequireOneOf<T>(T value, string option, params T[] allowed)
        where T : struct, Enum
    {
        foreach (T one in allowed)
        {
            if (EqualityComparer<T>.Default.Equals(one, value))
            {
                return this;
            }
        }

        return Require(false, option, value, string.Join(" or ", Array.ConvertAll(allowed, a => a.ToString())));
    }

    /// <summary>When <paramref name="contradicts"/>: the options contradict each other, as <paramref name="why"/> says (a sentence).</summary>
    public OptionProblems Refuse(bool contradicts, string why)
    {
        if (contradicts)
        {
            (_problems ??= []).Add(why);
            _contradiction = true;
        }

        return this;
    }

    /// <summary>From a constructor: throws if any rule is broken (see the type's remarks).</summary>
    /// <exception cref="ArgumentException">A rule is broken.</exception>
    public void ThrowIfAny(string paramName)
    {
        if (Any)
        {
            throw _contradiction ? new ArgumentException(Message, paramName) : new ArgumentOutOfRangeException(paramName, Message);
        }
    }

    /// <summary>When a host starts: throws if any rule is broken.</summary>
    /// <exception cref="InvalidOperationException">A rule is broken.</exception>
    public void ThrowIfAnyAtStart()
    {
        if (Any)
        {
            throw new InvalidOperationException(Message);
        }
    }

    private static string Show(object? value) => value switch
    {
        null => "null",
        string text => "'" + BoundedText.Cut(text, 200) + "'",
        TimeSpan span => span.ToString("c", CultureInfo.InvariantCulture),
        Enum e => e.ToString() is { Length: > 0 } name && (char.IsDigit(name[0]) || name[0] == '-') ? "(" + e.GetType().Name + ")" + name : e.GetType().Name + "." + e,
        IFormattable formattable => formattable.ToString(null, CultureInfo.InvariantCulture),
        _ => value.ToString() ?? string.Empty,
    };
}
