using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.Tests.Support;

/// <summary>
/// Every log line of Information and above, as the application's logger would write it: for tests of what an operator
/// reads. Kept in <see cref="Lines"/>, or handed to <paramref name="onLine"/> instead (with its level and event id).
/// </summary>
internal sealed class CapturedLog(Action<LogLevel, EventId, string>? onLine = null) : ILoggerProvider, ILogger
{
    private readonly ConcurrentQueue<string> _lines = new();

    public IReadOnlyList<string> Lines => _lines.ToList();

    public ILogger CreateLogger(string categoryName) => this;

    public IDisposable? BeginScope<TState>(TState state)
        where TState : notnull => null;

    public bool IsEnabled(LogLevel logLevel) => logLevel >= LogLevel.Information;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
    {
        if (!IsEnabled(logLevel))
        {
            return;
        }

        if (onLine is null)
        {
            _lines.Enqueue(formatter(state, exception));
        }
        else
        {
            onLine(logLevel, eventId, formatter(state, exception));
        }
    }

    public void Dispose()
    {
    }
}
