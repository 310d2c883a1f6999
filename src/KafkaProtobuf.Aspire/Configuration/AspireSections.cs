using System;
using System.Globalization;
using Microsoft.Extensions.Configuration;

namespace KafkaProtobuf.Aspire.Configuration;

/// <summary>Where the integration's configuration lives, in Aspire's convention, and the shared switches read from it.</summary>
internal static class AspireSections
{
    /// <summary>The root section: shared switches, then <c>Consumers</c>, <c>Producers</c> and <c>Registries</c> by name.</summary>
    public const string Root = "Aspire:KafkaProtobuf";

    public static string Consumer(string consumerName) => Root + ":Consumers:" + consumerName;

    public static string Producer(string connectionName) => Root + ":Producers:" + connectionName;

    public static string Registry(string connectionName) => Root + ":Registries:" + connectionName;

    /// <summary>Settings for one client: its connection string and the shared switches, before code changes them.</summary>
    /// <exception cref="InvalidOperationException">A switch that is not true or false.</exception>
    public static KafkaProtobufClientSettings Read(IConfiguration configuration, string connectionName)
    {
        IConfigurationSection root = configuration.GetSection(Root);
        return new KafkaProtobufClientSettings
        {
            ConnectionString = configuration.GetConnectionString(connectionName),
            DisableHealthChecks = Flag(root, nameof(KafkaProtobufClientSettings.DisableHealthChecks)),
            DisableTracing = Flag(root, nameof(KafkaProtobufClientSettings.DisableTracing)),
            DisableMetrics = Flag(root, nameof(KafkaProtobufClientSettings.DisableMetrics)),
            DisableLogging = Flag(root, nameof(KafkaProtobufClientSettings.DisableLogging)),
        };
    }

    /// <summary>The connection string, or a clear error naming where it was looked for.</summary>
    public static string ConnectionString(KafkaProtobufClientSettings settings, string connectionName) =>
        string.IsNullOrWhiteSpace(settings.ConnectionString)
            ? throw new InvalidOperationException(
                "No connection string '" + connectionName + "': give ConnectionStrings:" + connectionName
                    + " (WithReference in the AppHost sets it) or set KafkaProtobufClientSettings.ConnectionString in code.")
            : settings.ConnectionString!;

    private static bool Flag(IConfigurationSection section, string key)
    {
        string? value = section[key];
        if (string.IsNullOrEmpty(value))
        {
            return false;
        }

        return bool.TryParse(value, out bool flag)
            ? flag
            : throw new InvalidOperationException(
                "The setting " + section.Path + ":" + key + " is '" + value.ToString(CultureInfo.InvariantCulture) + "'; it takes true or false.");
    }
}
