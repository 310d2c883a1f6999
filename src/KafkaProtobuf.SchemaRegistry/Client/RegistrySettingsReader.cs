using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Threading.Tasks;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// Reads Confluent's <c>schema.registry.*</c> settings into <see cref="RegistryClientOptions"/>: every key Confluent's
/// .NET client knows is either honoured or refused by name with the reason (docs/schema-registry.md lists them).
/// </summary>
internal static class RegistrySettingsReader
{
    private const string Prefix = "schema.registry.";

    /// <summary>Keys Confluent's client knows that this one refuses, with the reason and what to do instead.</summary>
    private static readonly Dictionary<string, string> Refused = new(StringComparer.Ordinal)
    {
        ["max.cached.schemas"] = "this client keeps no cache; the deserializers do: set WriterSchemas.CacheCapacity",
        ["latest.cache.ttl.secs"] = "this client keeps no cache of latest versions",
        ["key.subject.name.strategy"] = "set RegistrySerializerOptions.SubjectNaming on the serializer (Confluent has deprecated this key too)",
        ["value.subject.name.strategy"] = "set RegistrySerializerOptions.SubjectNaming on the serializer (Confluent has deprecated this key too)",
    };

    /// <summary>The keys read on their own: each sets its option from its value (the key as given names it in an error).</summary>
    private static readonly Dictionary<string, Action<RegistryClientOptions, string, string>> ReadAlone = new(StringComparer.Ordinal)
    {
        ["url"] = (options, _, value) =>
        {
            foreach (string url in value.Split(',').Select(u => u.Trim()).Where(u => u.Length > 0))
            {
                options.Urls.Add(url);
            }
        },
        ["basic.auth.user.info"] = (options, _, value) => options.BasicAuthUserInfo = value,
        ["bearer.auth.logical.cluster"] = (options, _, value) => options.LogicalCluster = value,
        ["bearer.auth.identity.pool.id"] = (options, _, value) => options.IdentityPoolId = value,
        ["ssl.ca.location"] = (options, key, value) => options.TrustedCertificateAuthorities.AddRange(FromFile(key, () => RegistryCertificates.LoadAuthorities(value))),
        ["enable.ssl.certificate.verification"] = (options, key, value) => options.VerifyServerCertificate = Flag(key, value),
        ["connections.max.per.server"] = (options, key, value) => options.MaxConnectionsPerServer = Number(key, value, minimum: 1),
        ["request.timeout.ms"] = (options, key, value) => options.RequestTimeout = TimeSpan.FromMilliseconds(Number(key, value, minimum: 1)),
        ["max.retries"] = (options, key, value) => options.MaxRetries = Number(key, value, minimum: 0),
        ["retries.wait.ms"] = (options, key, value) => options.RetryBackoff = TimeSpan.FromMilliseconds(Number(key, value, minimum: 0)),
        ["retries.max.wait.ms"] = (options, key, value) => options.MaxRetryBackoff = TimeSpan.FromMilliseconds(Number(key, value, minimum: 0)),
    };

    /// <summary>The keys read with the ones they go with, once all are known.</summary>
    private static readonly string[] ReadTogether =
    [
        "basic.auth.credentials.source", "bearer.auth.credentials.source", "bearer.auth.token", "bearer.auth.client.id",
        "bearer.auth.client.secret", "bearer.auth.scope", "bearer.auth.token.endpoint.url", "bearer.auth.token.endpoint.query",
        "ssl.keystore.location", "ssl.keystore.password",
    ];

    /// <summary>Java's name for <c>bearer.auth.token.endpoint.url</c>, read as it.</summary>
    private const string IssuerEndpointAlias = "bearer.auth.issuer.endpoint.url";

    /// <summary>Every key read or refused by name, without the prefix.</summary>
    internal static readonly string[] Names = [.. ReadAlone.Keys, .. ReadTogether, IssuerEndpointAlias, .. Refused.Keys];

    internal static RegistryClientOptions Read(IEnumerable<KeyValuePair<string, string?>> settings, IEnumerable<KeyValuePair<string, string>>? kafkaClientSettings)
    {
        if (settings is null)
        {
            throw new ArgumentNullException(nameof(settings));
        }

        var values = new Dictionary<string, (string Key, string Value)>(StringComparer.Ordinal);
        foreach (KeyValuePair<string, string?> setting in settings)
        {
            if (setting.Value is { } value)
            {
                string key = setting.Key.StartsWith(Prefix, StringComparison.Ordinal) ? setting.Key.Substring(Prefix.Length) : setting.Key;
                values[key == IssuerEndpointAlias ? "bearer.auth.token.endpoint.url" : key] = (setting.Key, value);
            }
        }

        var options = new RegistryClientOptions();
        foreach (KeyValuePair<string, (string Key, string Value)> entry in values)
        {
            (string key, string value) = entry.Value;
            if (ReadAlone.TryGetValue(entry.Key, out Action<RegistryClientOptions, string, string>? read))
            {
                read(options, key, value);
            }
            else if (Array.IndexOf(ReadTogether, entry.Key) < 0)
            {
                throw Refuse(key, Refused.TryGetValue(entry.Key, out string? reason)
                    ? "is not supported: " + reason
                    : "is not a Schema Registry setting this client knows (Confluent's names, with or without 'schema.registry.')");
            }
        }

        ReadKeyStore(values, options);
        ReadBasicSource(values, kafkaClientSettings, options);
        ReadBearer(values, options);
        if (options.Urls.Count == 0)
        {
            throw new ArgumentException("The settings name no Schema Registry URL (schema.registry.url).", nameof(settings));
        }

        return options;
    }

    private static void ReadKeyStore(Dictionary<string, (string Key, string Value)> values, RegistryClientOptions options)
    {
        bool hasPassword = values.TryGetValue("ssl.keystore.password", out var password);
        if (values.TryGetValue("ssl.keystore.location", out var location))
        {
            options.ClientCertificate = FromFile(location.Key, () => RegistryCertificates.LoadClientCertificate(location.Value, hasPassword ? password.Value : null));
        }
        else if (hasPassword)
        {
            throw Refuse(password.Key, "is set without ssl.keystore.location, the key store it opens");
        }
    }

    private static void ReadBasicSource(Dictionary<string, (string Key, string Value)> values, IEnumerable<KeyValuePair<string, string>>? kafka, RegistryClientOptions options)
    {
        if (!values.TryGetValue("basic.auth.credentials.source", out var source) || source.Value.Equals("USER_INFO", StringComparison.OrdinalIgnoreCase))
        {
            return;
        }

        if (!source.Value.Equals("SASL_INHERIT", StringComparison.OrdinalIgnoreCase))
        {
            throw Refuse(source.Key, "is '" + source.Value + "'; this client knows USER_INFO and SASL_INHERIT");
        }

        if (kafka is null)
        {
            throw Refuse(source.Key, "is SASL_INHERIT, which takes sasl.username and sasl.password from the Kafka client's settings: call FromSettings(settings, kafkaClientSettings) with them");
        }

        if (options.BasicAuthUserInfo is not null)
        {
            throw Refuse(source.Key, "is SASL_INHERIT, and basic.auth.user.info is set too: give one");
        }

        Dictionary<string, string> sasl = kafka.Where(s => s.Key.StartsWith("sasl.", StringComparison.Ordinal) && s.Value is not null).GroupBy(s => s.Key).ToDictionary(g => g.Key, g => g.Last().Value, StringComparer.Ordinal);
        if (sasl.TryGetValue("sasl.mechanism", out string? mechanism) && mechanism.ToUpperInvariant() is "GSSAPI" or "OAUTHBEARER")
        {
            throw Refuse(source.Key, "is SASL_INHERIT, but the Kafka client's sasl.mechanism is " + mechanism + ", which has no username and password to inherit (PLAIN and SCRAM have)");
        }

        if (!sasl.TryGetValue("sasl.username", out string? user) || !sasl.TryGetValue("sasl.password", out string? password))
        {
            throw Refuse(source.Key, "is SASL_INHERIT, but the Kafka client's settings have no sasl.username and sasl.password");
        }

        options.BasicAuthUserInfo = user + ":" + password;
    }

    private static void ReadBearer(Dictionary<string, (string Key, string Value)> values, RegistryClientOptions options)
    {
        string? Value(string key) => values.TryGetValue(key, out var v) ? v.Value : null;
        string[] oauthKeys = ["bearer.auth.client.id", "bearer.auth.client.secret", "bearer.auth.scope", "bearer.auth.token.endpoint.url", "bearer.auth.token.endpoint.query"];
        bool hasToken = Value("bearer.auth.token") is not null;
        bool hasOAuth = oauthKeys.Any(values.ContainsKey);
        bool sourceGiven = values.TryGetValue("bearer.auth.credentials.source", out var given);
        string source = sourceGiven ? given.Value.ToUpperInvariant() : hasOAuth ? "OAUTHBEARER" : hasToken ? "STATIC_TOKEN" : string.Empty;
        string sourceKey = sourceGiven ? given.Key : "bearer.auth.credentials.source";
        switch (source)
        {
            case "":
                return;
            case "STATIC_TOKEN":
                if (hasOAuth)
                {
                    throw Refuse(sourceKey, "is STATIC_TOKEN, and OAuth client settings (bearer.auth.client.id...) are set too: give one");
                }

                string token = Value("bearer.auth.token") ?? throw Refuse(sourceKey, "is STATIC_TOKEN, but bearer.auth.token is not set");
                options.BearerToken = _ => Task.FromResult(token);
                return;
            case "OAUTHBEARER":
                if (hasToken)
                {
                    throw Refuse(sourceKey, "is OAUTHBEARER, and bearer.auth.token is set too: give one");
                }

                string endpoint = Value("bearer.auth.token.endpoint.url") ?? throw Refuse(sourceKey, "is OAUTHBEARER, but bearer.auth.token.endpoint.url is not set");
                if (Value("bearer.auth.token.endpoint.query") is { Length: > 0 } query)
                {
                    endpoint += (endpoint.IndexOf('?') < 0 ? "?" : "&") + query.TrimStart('?', '&');
                }

                options.OAuth = new OAuthClientCredentials
                {
                    TokenEndpoint = endpoint,
                    ClientId = Value("bearer.auth.client.id") ?? throw Refuse(sourceKey, "is OAUTHBEARER, but bearer.auth.client.id is not set"),
                    ClientSecret = Value("bearer.auth.client.secret") ?? throw Refuse(sourceKey, "is OAUTHBEARER, but bearer.auth.client.secret is not set"),
                    Scope = Value("bearer.auth.scope"),
                };
                return;
            case "OAUTHBEARER_AZURE_IMDS":
                throw Refuse(sourceKey, "is OAUTHBEARER_AZURE_IMDS, which this client does not implement: set RegistryClientOptions.BearerToken to a callback that returns the managed identity's token (e.g. Azure.Identity's ManagedIdentityCredential)");
            case "CUSTOM":
                throw Refuse(sourceKey, "is CUSTOM: set RegistryClientOptions.BearerToken to your callback in code");
            default:
                throw Refuse(sourceKey, "is '" + given.Value + "'; this client knows STATIC_TOKEN and OAUTHBEARER");
        }
    }

    /// <summary>A certificate file's load, its failure named by the setting (the file's own message says which file and why).</summary>
    private static T FromFile<T>(string key, Func<T> load)
    {
        try
        {
            return load();
        }
        catch (Exception e) when (e is System.IO.IOException or UnauthorizedAccessException or ArgumentException)
        {
            throw new ArgumentException("The Schema Registry setting '" + key + "' names a file that cannot be used: " + e.Message, e);
        }
    }

    private static bool Flag(string key, string value) =>
        bool.TryParse(value, out bool flag) ? flag : throw Refuse(key, "is '" + value + "', not true or false");

    private static int Number(string key, string value, int minimum) =>
        int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out int number) && number >= minimum
            ? number
            : throw Refuse(key, "is '" + value + "', not a whole number of at least " + minimum.ToString(CultureInfo.InvariantCulture));

    // Values are echoed only for keys that hold no secret (sources, numbers, flags).
    private static ArgumentException Refuse(string key, string why) => new("The Schema Registry setting '" + key + "' " + why + ".");
}
