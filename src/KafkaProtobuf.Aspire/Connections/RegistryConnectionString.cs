using System;
using System.Collections.Generic;
using System.Data.Common;
using System.Linq;

namespace KafkaProtobuf.Aspire.Connections;

/// <summary>
/// A Schema Registry connection string: its URL (or several, comma-separated), what Aspire's registry resources give,
/// or <c>key=value;…</c> pairs with Confluent's <c>schema.registry.*</c> setting names (<c>url</c>,
/// <c>basic.auth.user.info</c>, …; the prefix may be left out).
/// </summary>
internal static class RegistryConnectionString
{
    /// <summary>The settings, with the <c>schema.registry.</c> prefix, for <c>RegistryClientOptions.FromSettings</c>.</summary>
    /// <exception cref="ArgumentException">Empty, pairs that cannot be parsed, or pairs without a URL.</exception>
    public static IReadOnlyList<KeyValuePair<string, string?>> Settings(string connectionString, string connectionName)
    {
        if (string.IsNullOrWhiteSpace(connectionString))
        {
            throw new ArgumentException("The connection string '" + connectionName + "' is empty.", nameof(connectionString));
        }

        // A URL has no '=' before its query; pairs start with a key.
        string head = connectionString.Split('?')[0];
        if (!head.Contains('=', StringComparison.Ordinal))
        {
            return [new("schema.registry.url", connectionString.Trim())];
        }

        var pairs = new DbConnectionStringBuilder();
        try
        {
            pairs.ConnectionString = connectionString;
        }
        catch (ArgumentException)
        {
            throw new ArgumentException("The connection string '" + connectionName + "' is neither a URL nor key=value pairs (a key or a quote out of place).", nameof(connectionString));
        }

        List<KeyValuePair<string, string?>> settings = pairs.Keys.Cast<string>()
            .Select(key => key.Trim().ToLowerInvariant())
            .Select(key => new KeyValuePair<string, string?>(
                key.StartsWith("schema.registry.", StringComparison.Ordinal) ? key : "schema.registry." + key,
                Convert.ToString(pairs[key], System.Globalization.CultureInfo.InvariantCulture)))
            .ToList();
        if (!settings.Any(s => s.Key == "schema.registry.url" && !string.IsNullOrWhiteSpace(s.Value)))
        {
            throw new ArgumentException("The connection string '" + connectionName + "' has key=value pairs but no url.", nameof(connectionString));
        }

        return settings;
    }
}
