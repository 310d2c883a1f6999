using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using Confluent.Kafka;
using Microsoft.Extensions.Configuration;

namespace KafkaProtobuf.Hosting;

/// <summary>
/// Reads <see cref="KafkaProtobufConsumerOptions"/> from a configuration section by a table of the keys it knows,
/// without reflection (trim- and AOT-safe): <c>Topics</c> (an array or a comma-separated string), <c>DeadLetterTopic</c>,
/// <c>Consumer</c> and <c>CopyProducer</c> (librdkafka's setting names as keys), <c>CopyTimeout</c>,
/// <c>ReadAgainDelay</c>, <c>StopApplicationOnFailure</c>, <c>FailureExitCode</c>, <c>MaxConcurrentHandlers</c>,
/// <c>HandlingOrder</c>, <c>MaxReadAheadBytes</c>, <c>LagDegradedThreshold</c>, <c>LagUnhealthyThreshold</c>,
/// <c>MessagingConventionMetrics</c>, <c>RevokeTimeout</c>, <c>HandlerFailures</c> (<c>MaxAttempts</c>,
/// <c>RetryBackoff</c>, <c>MaxRetryBackoff</c>, <c>WhenAttemptsRunOut</c>), <c>Batches</c> (<c>MaxSize</c>,
/// <c>MaxWait</c>, <c>AcrossPartitions</c>, <c>WhenBatchFails</c>) and <c>RetryTopics</c> (<c>Delays</c>, an array or a
/// comma-separated string; <c>ReadRetryTopics</c>) and <c>ProvenanceKeys</c> (base64 keys, an array or a
/// comma-separated string; its text is never quoted in an error). A key it does not know is refused, so that a misspelt or renamed
/// setting is not silently left at its default.
/// </summary>
internal static class ConsumerConfiguration
{
    private static readonly Dictionary<string, Action<IConfigurationSection, HandlerFailureOptions>> HandlerFailureKeys =
        new(StringComparer.OrdinalIgnoreCase)
    {
        ["MaxAttempts"] = (s, o) => o.MaxAttempts = IntOf(s),
        ["RetryBackoff"] = (s, o) => o.RetryBackoff = TimeSpanOf(s),
        ["MaxRetryBackoff"] = (s, o) => o.MaxRetryBackoff = TimeSpanOf(s),
        // Retry is no answer to running out
        ["WhenAttemptsRunOut"] = (s, o) => o.WhenAttemptsRunOut = OneOf(
            s, HandlerFailureAction.DeadLetter, HandlerFailureAction.StopConsumer),
    };

    private static readonly Dictionary<string, Action<IConfigurationSection, BatchOptions>> BatchKeys =
        new(StringComparer.OrdinalIgnoreCase)
    {
        ["MaxSize"] = (s, o) => o.MaxSize = IntOf(s),
        ["MaxWait"] = (s, o) => o.MaxWait = TimeSpanOf(s),
        ["AcrossPartitions"] = (s, o) => o.AcrossPartitions = BoolOf(s),
        ["WhenBatchFails"] = (s, o) => o.WhenBatchFails = OneOf(s, FailedBatchAction.Split, FailedBatchAction.WholeBatch),
    };

    private static readonly Dictionary<string, Action<IConfigurationSection, RetryTopicOptions>> RetryTopicKeys =
        new(StringComparer.OrdinalIgnoreCase)
    {
        ["Delays"] = (s, o) =>
        {
            string[] delays = ListOf(s);
            if (delays.Length > 0)
            {
                o.Delays.Clear();
                foreach (string delay in delays)
                {
                    o.Delays.Add(TimeSpan.TryParse(delay, CultureInfo.InvariantCulture, out TimeSpan value)
                        ? value
                        : throw Invalid(s, delay, "time spans such as 00:00:10"));
                }
            }
        },
        ["ReadRetryTopics"] = (s, o) => o.ReadRetryTopics = BoolOf(s),
    };

    private static readonly Dictionary<string, Action<IConfigurationSection, KafkaProtobufConsumerOptions>> Keys =
        new(StringComparer.OrdinalIgnoreCase)
    {
        ["Topics"] = (s, o) =>
        {
            foreach (string topic in ListOf(s).Where(t => !o.Topics.Contains(t)))
            {
                o.Topics.Add(topic);
            }
        },
        ["DeadLetterTopic"] = (s, o) => o.DeadLetterTopic = s.Value is { Length: > 0 } topic ? topic : o.DeadLetterTopic,
        ["Consumer"] = (s, o) => SetAll(s, o.Consumer),
        ["CopyProducer"] = (s, o) =>
        {
            if (s.GetChildren().Any())
            {
                SetAll(s, o.CopyProducer ??= new ProducerConfig());
            }
        },
        ["CopyTimeout"] = (s, o) => o.CopyTimeout = TimeSpanOf(s),
        ["ReadAgainDelay"] = (s, o) => o.ReadAgainDelay = TimeSpanOf(s),
        ["StopApplicationOnFailure"] = (s, o) => o.StopApplicationOnFailure = BoolOf(s),
        ["FailureExitCode"] = (s, o) => o.FailureExitCode = IntOf(s),
        ["MaxConcurrentHandlers"] = (s, o) => o.MaxConcurrentHandlers = IntOf(s),
        ["MaxReadAheadBytes"] = (s, o) => o.MaxReadAheadBytes = LongOf(s),
        ["LagDegradedThreshold"] = (s, o) => o.LagDegradedThreshold = LongOf(s),
        ["LagUnhealthyThreshold"] = (s, o) => o.LagUnhealthyThreshold = LongOf(s),
        ["MessagingConventionMetrics"] = (s, o) => o.MessagingConventionMetrics = BoolOf(s),
        ["RevokeTimeout"] = (s, o) => o.RevokeTimeout = TimeSpanOf(s),
        ["HandlingOrder"] = (s, o) => o.HandlingOrder = OneOf(s, HandlingOrder.Partition, HandlingOrder.Key),
        ["HandlerFailures"] = (s, o) => Read(s, HandlerFailureKeys, o.HandlerFailures),
        ["Batches"] = (s, o) => Read(s, BatchKeys, o.Batches),
        ["RetryTopics"] = (s, o) => Read(s, RetryTopicKeys, o.RetryTopics),
        ["ProvenanceKeys"] = (s, o) => o.ProvenanceKeys = KeysOf(s),
    };

    public static void Apply(IConfiguration section, KafkaProtobufConsumerOptions options) => Read(section, Keys, options);

    /// <summary>Reads each key the section has by its entry in <paramref name="keys"/>; a key without one is refused.</summary>
    private static void Read<T>(IConfiguration section, Dictionary<string, Action<IConfigurationSection, T>> keys, T options)
    {
        foreach (IConfigurationSection setting in section.GetChildren())
        {
            if (setting.Value is null && !setting.GetChildren().Any())
            {
                continue; // present but empty (a JSON null): not set
            }

            if (!keys.TryGetValue(setting.Key, out Action<IConfigurationSection, T>? read))
            {
                throw new InvalidOperationException(
                    "The KafkaProtobuf consumer setting " + setting.Path + " is not one it knows; the settings there "
                        + "are " + string.Join(", ", keys.Keys) + ".");
            }

            read(setting, options);
        }
    }

    /// <summary>librdkafka's settings, by their own names.</summary>
    private static void SetAll(IConfigurationSection section, ClientConfig config)
    {
        foreach (IConfigurationSection setting in section.GetChildren())
        {
            config.Set(setting.Key, setting.Value);
        }
    }

    /// <summary>A list: an array, or a comma-separated string.</summary>
    private static string[] ListOf(IConfigurationSection section) =>
        section.Value is { } list
            ? list.Split([','], StringSplitOptions.RemoveEmptyEntries).Select(t => t.Trim()).ToArray()
            : section.GetChildren().Select(c => c.Value).OfType<string>().ToArray();

    /// <summary>An enum setting by name, among the values allowed there (not every member is).</summary>
    private static T OneOf<T>(IConfigurationSection setting, params T[] allowed)
        where T : struct, Enum
    {
        foreach (T value in allowed)
        {
            if (string.Equals(setting.Value?.Trim(), value.ToString(), StringComparison.Ordinal))
            {
                return value;
            }
        }

        throw Invalid(setting, setting.Value, string.Join(" or ", allowed));
    }

    /// <summary>Keys as text; a key that is not base64 or too short is refused by its place, never quoted (it is a secret).</summary>
    private static DeadLetters.ProvenanceKeys? KeysOf(IConfigurationSection setting)
    {
        string[] keys = ListOf(setting);
        if (keys.Length == 0)
        {
            return null;
        }

        try
        {
            return DeadLetters.ProvenanceKeys.Parse(string.Join(",", keys));
        }
        catch (Exception e) when (e is FormatException or ArgumentException)
        {
            throw new InvalidOperationException(
                "The KafkaProtobuf consumer setting " + setting.Path + " is not a list of base64 keys: " + e.Message, e);
        }
    }

    private static bool BoolOf(IConfigurationSection setting) =>
        bool.TryParse(setting.Value, out bool value) ? value : throw Invalid(setting, setting.Value, "true or false");

    private static int IntOf(IConfigurationSection setting) =>
        int.TryParse(setting.Value, NumberStyles.Integer, CultureInfo.InvariantCulture, out int value)
            ? value
            : throw Invalid(setting, setting.Value, "a whole number");

    private static long LongOf(IConfigurationSection setting) =>
        long.TryParse(setting.Value, NumberStyles.Integer, CultureInfo.InvariantCulture, out long value)
            ? value
            : throw Invalid(setting, setting.Value, "a whole number");

    private static TimeSpan TimeSpanOf(IConfigurationSection setting) =>
        TimeSpan.TryParse(setting.Value, CultureInfo.InvariantCulture, out TimeSpan value)
            ? value
            : throw Invalid(setting, setting.Value, "a time span such as 00:00:10");

    private static InvalidOperationException Invalid(IConfigurationSection setting, string? value, string expected) =>
        new("The KafkaProtobuf consumer setting " + setting.Path + " is '" + value + "'; expected " + expected + ".");
}
