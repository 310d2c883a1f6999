using System;
using System.Collections.Generic;
using System.Globalization;
using KafkaProtobuf.SchemaRegistry;
using Streamiz.Kafka.Net;

namespace KafkaProtobuf.Streamiz;

/// <summary>
/// A stream configuration's registry and serializer settings. Streamiz's configuration can be asked by key but not
/// listed, so every key the registry client knows is asked for by name.
/// </summary>
internal static class StreamizSettings
{
    private const string Registry = "schema.registry.";
    private const string Serializer = "protobuf.serializer.";

    internal static TResult Read<TResult>(IStreamConfig config, Func<RegistryClient, RegistrySerializerOptions, int?, TResult> make)
    {
        var registry = new List<KeyValuePair<string, string?>>();
        int? cacheCapacity = null;
        foreach (string name in RegistryClientOptions.SettingNames)
        {
            if (Text(config, Registry + name) is not { } value)
            {
                continue;
            }

            if (name == "max.cached.schemas")
            {
                cacheCapacity = int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out int capacity) && capacity > 0
                    ? capacity
                    : throw new ArgumentException("The stream setting 'schema.registry.max.cached.schemas' is '" + value + "', not a whole number of at least 1.");
            }
            else
            {
                registry.Add(new KeyValuePair<string, string?>(Registry + name, value));
            }
        }

        var sasl = new List<KeyValuePair<string, string>>();
        foreach (string name in new[] { "sasl.mechanism", "sasl.username", "sasl.password" })
        {
            if (Text(config, name) is { } value)
            {
                sasl.Add(new KeyValuePair<string, string>(name, value));
            }
        }

        RegistryClientOptions options = RegistryClientOptions.FromSettings(registry, sasl);
        options.Logger = config.Logger?.CreateLogger(typeof(RegistryClient).FullName!); // the stream's logging, for the client's one warning
        var serializer = new RegistrySerializerOptions();
        if (Flag(config, "auto.register.schemas") is { } autoRegister)
        {
            serializer.AutoRegisterSchemas = autoRegister;
        }

        if (Flag(config, "use.latest.version") is { } latest)
        {
            serializer.UseLatestVersion = latest;
        }

        if (Flag(config, "skip.known.types") is { } skip)
        {
            serializer.SkipKnownTypes = skip;
        }

        if (Flag(config, "use.deprecated.format") is true)
        {
            serializer.MessageIndexEncoding = MessageIndexEncoding.LegacyUnsigned;
        }

        if (Text(config, Serializer + "subject.name.strategy") is { } strategy)
        {
            serializer.SubjectNaming = strategy switch
            {
                nameof(SubjectNameStrategy.Topic) => SubjectNaming.Topic,
                nameof(SubjectNameStrategy.Record) => SubjectNaming.Record,
                nameof(SubjectNameStrategy.TopicRecord) => SubjectNaming.TopicRecord,
                _ => throw new ArgumentException("The stream setting 'protobuf.serializer.subject.name.strategy' is '" + strategy + "'; Topic, Record or TopicRecord."),
            };
        }

        if (Text(config, Serializer + "reference.subject.name.strategy") is { } references && references != nameof(ReferenceSubjectNameStrategy.ReferenceName))
        {
            throw new ArgumentException("The stream setting 'protobuf.serializer.reference.subject.name.strategy' is '" + references + "'; references are named by their import path (ReferenceName) only.");
        }

        // protobuf.serializer.buffer.bytes is a sizing hint for Confluent's serializer; this one writes each record at its exact size.
        var client = new RegistryClient(options);
        try
        {
            return make(client, serializer, cacheCapacity);
        }
        catch
        {
            client.Dispose();
            throw;
        }
    }

    private static bool? Flag(IStreamConfig config, string name) =>
        Text(config, Serializer + name) is { } value
            ? bool.TryParse(value, out bool flag) ? flag : throw new ArgumentException("The stream setting '" + Serializer + name + "' is '" + value + "', not true or false.")
            : null;

    private static string? Text(IStreamConfig config, string key)
    {
        object? value = config.Get(key);
        return value switch
        {
            null => null,
            string text => text,
            bool flag => flag ? "true" : "false",
            IFormattable formattable => formattable.ToString(null, CultureInfo.InvariantCulture),
            _ => value.ToString(),
        };
    }
}
