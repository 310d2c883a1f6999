using System;
using System.Collections.Generic;
using System.Data.Common;
using System.Linq;
using Confluent.Kafka;

namespace KafkaProtobuf.Aspire.Connections;

/// <summary>
/// A Kafka connection string as Aspire hands it to a service: a host list (<c>host:port,host:port</c>, what
/// Aspire.Hosting.Kafka's resource and ours give), or <c>key=value;key=value</c> pairs with Confluent.Kafka's setting
/// names (<c>bootstrap.servers=…;security.protocol=SASL_SSL;…</c>; values may be quoted as in any connection string).
/// </summary>
internal static class KafkaConnectionString
{
    /// <summary>The settings the connection string gives, in its order.</summary>
    /// <exception cref="ArgumentException">Empty, a pair list that cannot be parsed, or pairs without bootstrap.servers.</exception>
    public static IReadOnlyList<KeyValuePair<string, string>> Settings(string connectionString, string connectionName)
    {
        if (string.IsNullOrWhiteSpace(connectionString))
        {
            throw new ArgumentException("The connection string '" + connectionName + "' is empty.", nameof(connectionString));
        }

        if (!connectionString.Contains('=', StringComparison.Ordinal))
        {
            return [new("bootstrap.servers", connectionString.Trim())];
        }

        var pairs = new DbConnectionStringBuilder();
        try
        {
            pairs.ConnectionString = connectionString;
        }
        catch (ArgumentException e)
        {
            // The text may hold a password: say where, not what.
            throw new ArgumentException("The connection string '" + connectionName + "' is neither a host list nor key=value pairs: " + Position(e), nameof(connectionString));
        }

        List<KeyValuePair<string, string>> settings = pairs.Keys.Cast<string>()
            .Select(key => new KeyValuePair<string, string>(key.Trim().ToLowerInvariant(), Convert.ToString(pairs[key], System.Globalization.CultureInfo.InvariantCulture) ?? string.Empty))
            .ToList();
        if (!settings.Any(s => s.Key == "bootstrap.servers" && s.Value.Length > 0))
        {
            throw new ArgumentException("The connection string '" + connectionName + "' has key=value pairs but no bootstrap.servers.", nameof(connectionString));
        }

        return settings;
    }

    /// <summary>Sets each of the connection string's settings on a client's config: they win over the configuration section's.</summary>
    public static void ApplyTo(ClientConfig config, string connectionString, string connectionName)
    {
        foreach (KeyValuePair<string, string> setting in Settings(connectionString, connectionName))
        {
            config.Set(setting.Key, setting.Value);
        }
    }

    /// <summary>Where the pairs went wrong, as the parser says it (an index, never the text).</summary>
    private static string Position(ArgumentException e) =>
        e.Message.Contains("index", StringComparison.OrdinalIgnoreCase) ? e.Message.Split('\n')[0] : "a key or a quote out of place";
}
