using System;
using System.Collections.Concurrent;
using System.Linq;
using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.Wolverine.Tests.Support;

/// <summary>The package's log lines, as an application's logging sees them (each test looks for its own topic's).</summary>
public sealed class CapturedLogs : ILoggerProvider
{
    private static readonly ConcurrentQueue<string> Lines = new();

    public static bool Any(string text) => Lines.Any(line => line.Contains(text, StringComparison.Ordinal));

    public ILogger CreateLogger(string categoryName) => new Logger(categoryName);

    public void Dispose()
    {
    }

    private sealed class Logger(string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => category.StartsWith("KafkaProtobuf", StringComparison.Ordinal);

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            if (IsEnabled(logLevel))
            {
                Lines.Enqueue(category + ": " + formatter(state, exception));
            }
        }
    }
}
