using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.AspNetCore.Tests;

/// <summary>Keeps the application's log lines (category and text), to check what the page logs of each act.</summary>
internal sealed class LogCapture : ILoggerProvider
{
    private readonly ConcurrentQueue<(string Category, string Text)> _lines = new();

    public IReadOnlyList<string> Lines(string category) => _lines.Where(l => l.Category == category).Select(l => l.Text).ToList();

    public ILogger CreateLogger(string categoryName) => new Logger(this, categoryName);

    public void Dispose()
    {
    }

    private sealed class Logger(LogCapture capture, string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => logLevel >= LogLevel.Information;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            if (IsEnabled(logLevel))
            {
                capture._lines.Enqueue((category, formatter(state, exception)));
            }
        }
    }
}
