using System;
using System.Globalization;
using System.Linq;
using Confluent.Kafka;
using Microsoft.Extensions.Configuration;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// Reads <see cref="KafkaProtobufConsumerOptions"/> from a configuration section, without reflection (trim- and
/// AOT-safe): <c>Topics</c> (an array or a comma-separated string), <c>DeadLetterTopic</c>, <c>Consumer</c> and
/// <c>DeadLetterProducer</c> (librdkafka's setting names as keys), <c>DeadLetterTimeout</c>, <c>ReadAgainDelay</c>,
/// <c>StopApplicationOnFailure</c>, <c>FailureExitCode</c>, <c>MaxConcurrentRecords</c>, <c>HandlingOrder</c>, <c>MaxReadAheadBytes</c>, <c>RevokeTimeout</c>
/// <c>HandlerFailures</c> (<c>MaxAttempts</c>, <c>RetryBackoff</c>, <c>MaxRetryBackoff</c>, <c>WhenAttemptsRunOut</c>)
/// <c>Batches</c> (<c>MaxSize</c>, <c>MaxWait</c>, <c>AcrossPartitions</c>, <c>WhenAttemptsRunOut</c>) and
/// <c>RetryTopics</c> (<c>Delays</c>, an array or a comma-separated string; <c>ReadRetryTopics</c>).
/// </summary>
internal static class ConsumerConfiguration
{
    public static void Apply(IConfiguration section, KafkaProtobufConsumerOptions options)
    {
        string[] names = ListOf(section.GetSection("Topics"));
        foreach (string topic in names.Where(t => !options.Topics.Contains(t)))
        {
            options.Topics.Add(topic);
        }

        if (section["DeadLetterTopic"] is { Length: > 0 } deadLetterTopic)
        {
            options.DeadLetterTopic = deadLetterTopic;
        }

        foreach (IConfigurationSection setting in section.GetSection("Consumer").GetChildren())
        {
            options.Consumer.Set(setting.Key, setting.Value);
        }

        IConfigurationSection producer = section.GetSection("DeadLetterProducer");
        if (producer.GetChildren().Any())
        {
            options.DeadLetterProducer ??= new ProducerConfig();
            foreach (IConfigurationSection setting in producer.GetChildren())
            {
                options.DeadLetterProducer.Set(setting.Key, setting.Value);
            }
        }

        options.DeadLetterTimeout = TimeSpanOr(section, "DeadLetterTimeout", options.DeadLetterTimeout);
        options.ReadAgainDelay = TimeSpanOr(section, "ReadAgainDelay", options.ReadAgainDelay);
        options.StopApplicationOnFailure = BoolOr(section, "StopApplicationOnFailure", options.StopApplicationOnFailure);

        options.FailureExitCode = IntOr(section, "FailureExitCode", options.FailureExitCode);
        options.MaxConcurrentRecords = IntOr(section, "MaxConcurrentRecords", options.MaxConcurrentRecords);
        options.MaxReadAheadBytes = LongOr(section, "MaxReadAheadBytes", options.MaxReadAheadBytes);
        options.RevokeTimeout = TimeSpanOr(section, "RevokeTimeout", options.RevokeTimeout);
        options.HandlingOrder = OneOf(section, "HandlingOrder", options.HandlingOrder, HandlingOrder.Partition, HandlingOrder.Key);

        IConfigurationSection failures = section.GetSection("HandlerFailures");
        options.HandlerFailures.MaxAttempts = IntOr(failures, "MaxAttempts", options.HandlerFailures.MaxAttempts);

        options.HandlerFailures.RetryBackoff = TimeSpanOr(failures, "RetryBackoff", options.HandlerFailures.RetryBackoff);
        options.HandlerFailures.MaxRetryBackoff = TimeSpanOr(failures, "MaxRetryBackoff", options.HandlerFailures.MaxRetryBackoff);
        options.HandlerFailures.WhenAttemptsRunOut = OneOf(
            failures, "WhenAttemptsRunOut", options.HandlerFailures.WhenAttemptsRunOut, HandlerFailureAction.DeadLetter, HandlerFailureAction.StopConsumer);

        IConfigurationSection batches = section.GetSection("Batches");
        options.Batches.MaxSize = IntOr(batches, "MaxSize", options.Batches.MaxSize);
        options.Batches.MaxWait = TimeSpanOr(batches, "MaxWait", options.Batches.MaxWait);
        options.Batches.AcrossPartitions = BoolOr(batches, "AcrossPartitions", options.Batches.AcrossPartitions);

        options.Batches.WhenAttemptsRunOut = OneOf(batches, "WhenAttemptsRunOut", options.Batches.WhenAttemptsRunOut, FailedBatchAction.Split, FailedBatchAction.WholeBatch);

        IConfigurationSection retryTopics = section.GetSection("RetryTopics");
        string[] delays = ListOf(retryTopics.GetSection("Delays"));
        if (delays.Length > 0)
        {
            options.RetryTopics.Delays.Clear();
            foreach (string delay in delays)
            {
                options.RetryTopics.Delays.Add(TimeSpan.TryParse(delay, CultureInfo.InvariantCulture, out TimeSpan value) ? value : throw Invalid(retryTopics, "Delays", delay, "time spans such as 00:00:10"));
            }
        }

        options.RetryTopics.ReadRetryTopics = BoolOr(retryTopics, "ReadRetryTopics", options.RetryTopics.ReadRetryTopics);
    }

    /// <summary>A list: an array, or a comma-separated string.</summary>
    private static string[] ListOf(IConfigurationSection section) =>
        section.Value is { } list
            ? list.Split([','], StringSplitOptions.RemoveEmptyEntries).Select(t => t.Trim()).ToArray()
            : section.GetChildren().Select(c => c.Value).OfType<string>().ToArray();

    /// <summary>An enum setting by name, among the values allowed there (not every member is: <c>Retry</c> is no answer to running out of attempts).</summary>
    private static T OneOf<T>(IConfiguration section, string key, T fallback, params T[] allowed)
        where T : struct, Enum
    {
        if (section[key] is not { } text)
        {
            return fallback;
        }

        foreach (T value in allowed)
        {
            if (string.Equals(text.Trim(), value.ToString(), StringComparison.Ordinal))
            {
                return value;
            }
        }

        throw Invalid(section, key, text, string.Join(" or ", allowed));
    }

    private static bool BoolOr(IConfiguration section, string key, bool fallback) =>
        section[key] is not { } text ? fallback
        : bool.TryParse(text, out bool value) ? value
        : throw Invalid(section, key, text, "true or false");

    private static int IntOr(IConfiguration section, string key, int fallback) =>
        section[key] is not { } text ? fallback
        : int.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out int value) ? value
        : throw Invalid(section, key, text, "a whole number");

    private static long LongOr(IConfiguration section, string key, long fallback) =>
        section[key] is not { } text ? fallback
        : long.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out long value) ? value
        : throw Invalid(section, key, text, "a whole number");

    private static TimeSpan TimeSpanOr(IConfiguration section, string key, TimeSpan fallback) =>
        section[key] is not { } text ? fallback
        : TimeSpan.TryParse(text, CultureInfo.InvariantCulture, out TimeSpan value) ? value
        : throw Invalid(section, key, text, "a time span such as 00:00:10");

    private static InvalidOperationException Invalid(IConfiguration section, string key, string value, string expected) =>
        new("The KafkaProtobuf consumer setting " + ((section as IConfigurationSection)?.Path is { Length: > 0 } path ? path + ":" : string.Empty) + key
            + " is '" + value + "'; expected " + expected + ".");
}
