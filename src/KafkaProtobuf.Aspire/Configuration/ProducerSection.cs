using System;
using System.Collections.Generic;
using System.Linq;
using KafkaProtobuf.SchemaRegistry;
using Microsoft.Extensions.Configuration;

namespace KafkaProtobuf.Aspire.Configuration;

/// <summary>
/// Reads <see cref="KafkaProtobufProducerOptions"/> from its section by a table of the keys it knows, without
/// reflection (trim- and AOT-safe); a key it does not know is refused, as the hosted consumer's section refuses one.
/// </summary>
internal static class ProducerSection
{
    private static readonly Dictionary<string, Action<IConfigurationSection, RegistrySerializerOptions>> SerializerKeys =
        new(StringComparer.OrdinalIgnoreCase)
    {
        ["AutoRegisterSchemas"] = (s, o) => o.AutoRegisterSchemas = Bool(s),
        ["UseLatestVersion"] = (s, o) => o.UseLatestVersion = Bool(s),
        ["NormalizeSchemas"] = (s, o) => o.NormalizeSchemas = Bool(s),
        ["SkipKnownTypes"] = (s, o) => o.SkipKnownTypes = Bool(s),
        ["SubjectNaming"] = (s, o) => o.SubjectNaming = Enum(s, SubjectNaming.Topic, SubjectNaming.Record, SubjectNaming.TopicRecord),
        ["SchemaIdPlacement"] = (s, o) => o.SchemaIdPlacement = Enum(s, SchemaIdPlacement.Prefix, SchemaIdPlacement.Header),
    };

    public static void Apply(IConfigurationSection section, KafkaProtobufProducerOptions options)
    {
        foreach (IConfigurationSection setting in section.GetChildren())
        {
            switch (setting.Key.ToUpperInvariant())
            {
                case "PRODUCER":
                    foreach (IConfigurationSection value in setting.GetChildren().Where(v => v.Value is not null))
                    {
                        options.Producer.Set(value.Key, value.Value);
                    }

                    break;
                case "SERIALIZER":
                    foreach (IConfigurationSection value in setting.GetChildren().Where(v => v.Value is { Length: > 0 }))
                    {
                        if (!SerializerKeys.TryGetValue(value.Key, out Action<IConfigurationSection, RegistrySerializerOptions>? read))
                        {
                            throw Unknown(value, SerializerKeys.Keys);
                        }

                        read(value, options.Serializer);
                    }

                    break;
                case "REGISTRYCONNECTIONNAME":
                    options.RegistryConnectionName = setting.Value is { Length: > 0 } registry ? registry : options.RegistryConnectionName;
                    break;
                case "DISABLEHEALTHCHECKS" or "DISABLELOGGING":
                    break; // the producer's switches (KafkaProtobufProducerSettings), read with the root's
                default:
                    throw Unknown(setting, ["Producer", "Serializer", "RegistryConnectionName", "DisableHealthChecks", "DisableLogging"]);
            }
        }
    }

    private static InvalidOperationException Unknown(IConfigurationSection setting, IEnumerable<string> known) =>
        new("The KafkaProtobuf producer setting " + setting.Path + " is not one it knows; the settings there are " + string.Join(", ", known) + ".");

    private static bool Bool(IConfigurationSection s) =>
        bool.TryParse(s.Value, out bool value) ? value : throw Invalid(s, "true or false");

    private static T Enum<T>(IConfigurationSection s, params T[] values)
        where T : struct, Enum =>
        values.Where(v => string.Equals(v.ToString(), s.Value, StringComparison.OrdinalIgnoreCase)).Select(v => (T?)v).FirstOrDefault()
            ?? throw Invalid(s, string.Join(", ", values));

    private static InvalidOperationException Invalid(IConfigurationSection s, string expected) =>
        new("The KafkaProtobuf producer setting " + s.Path + " is '" + s.Value + "'; it takes " + expected + ".");
}
