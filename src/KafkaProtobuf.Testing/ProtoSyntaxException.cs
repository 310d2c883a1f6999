using System;
using System.Collections.Generic;

namespace KafkaProtobuf.Testing;

/// <summary>.proto text that does not compile: where the first error is, and every error as <c>file:line:column: message</c>.</summary>
public sealed class ProtoSyntaxException : FormatException
{
    /// <summary>Creates the exception.</summary>
    /// <param name="fileName">The file of the first error.</param>
    /// <param name="line">Its line, from 1 (0: not known).</param>
    /// <param name="column">Its column, from 1 (0: not known).</param>
    /// <param name="errors">Every error, each <c>file:line:column: message</c>.</param>
    public ProtoSyntaxException(string fileName, int line, int column, IReadOnlyList<string> errors)
        : base(string.Join(Environment.NewLine, errors ?? throw new ArgumentNullException(nameof(errors))))
    {
        FileName = fileName;
        Line = line;
        Column = column;
        Errors = errors;
    }

    /// <summary>The file of the first error.</summary>
    public string FileName { get; }

    /// <summary>The first error's line, from 1 (0: not known).</summary>
    public int Line { get; }

    /// <summary>The first error's column, from 1 (0: not known).</summary>
    public int Column { get; }

    /// <summary>Every error, each <c>file:line:column: message</c>.</summary>
    public IReadOnlyList<string> Errors { get; }
}
