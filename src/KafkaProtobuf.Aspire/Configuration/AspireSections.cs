using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using Microsoft.Extensions.Configuration;

namespace KafkaProtobuf.Aspire.Configuration;

/// <summary>
/// Where the integration's configuration lives, in Aspire's convention, and the switches read from it: first the root
/// section's (every client's), then the client's own section's.
/// </summary>
internal static class AspireSections
{
    /// <summary>The root section: switches for every client, then <c>Consumers</c>, <c>Producers</c> and <c>Registries</c> by name.</summary>
    public const string Root = "Aspire:KafkaProtobuf";

    public static string Consumer(string consumerName) => Root + ":Consumers:" + consumerName;

    public static string Producer(string connectionName) => Root + ":Producers:" + connectionName;

    public static string Registry(string connectionName) => Root + ":Registries:" + connectionName;

    /// <summary>
    /// A switch (<c>DisableHealthChecks</c>…): the client's own section's value, else the root's, else false.
    /// </summary>
    /// <exception cref="InvalidOperationException">A value that is not true or false.</exception>
    public static bool Switch(IConfiguration configuration, string clientSection, string key) =>
        Flag(configuration.GetSection(clientSection), key) ?? Flag(configuration.GetSection(Root), key) ?? false;

    /// <summary>
    /// The client's section without the switches (for readers that refuse keys they do not know, the hosted consumer's):
    /// a copy, read once.
    /// </summary>
    public static IConfiguration Without(IConfiguration configuration, string clientSection, params string[] switches)
    {
        IConfigurationSection section = configuration.GetSection(clientSection);
        IEnumerable<KeyValuePair<string, string?>> kept = section.AsEnumerable(makePathsRelative: true)
            .Where(setting => setting.Value is not null && !switches.Contains(setting.Key, StringComparer.OrdinalIgnoreCase));
        return new ConfigurationBuilder().AddInMemoryCollection(kept).Build();
    }

    /// <summary>The connection string, or a clear error naming where it was looked for.</summary>
    public static string ConnectionString(string? given, string connectionName, string settingsType) =>
        string.IsNullOrWhiteSpace(given)
            ? throw new InvalidOperationException(
                "No connection string '" + connectionName + "': give ConnectionStrings:" + connectionName
                    + " (WithReference in the AppHost sets it) or set " + settingsType + ".ConnectionString in code.")
            : given!;

    private static bool? Flag(IConfigurationSection section, string key)
    {
        string? value = section[key];
        if (string.IsNullOrEmpty(value))
        {
            return null;
        }

        return bool.TryParse(value, out bool flag)
            ? flag
            : throw new InvalidOperationException(
                "The setting " + section.Path + ":" + key + " is '" + value.ToString(CultureInfo.InvariantCulture) + "'; it takes true or false.");
    }
}
