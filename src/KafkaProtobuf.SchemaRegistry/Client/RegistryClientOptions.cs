using System;
using System.Collections.Generic;
using System.Globalization;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>Settings of a <see cref="RegistryClient"/>. The client copies them when it is created.</summary>
/// <remarks>There is no cache setting: the client keeps no answers (the deserializers cache what they resolve, see <see cref="WriterSchemaOptions.CacheCapacity"/>).</remarks>
public sealed class RegistryClientOptions
{
    /// <summary>
    /// The registry's base URLs, tried in order: a URL that cannot be reached, times out, or answers 429 or 5xx is
    /// followed by the next (Confluent's <c>schema.registry.url</c>, comma-separated there).
    /// </summary>
    public IList<string> Urls { get; } = new List<string>();

    /// <summary>
    /// Basic authentication as <c>user:password</c>, e.g. a Confluent Cloud API key and secret
    /// (Confluent's <c>basic.auth.user.info</c>). Not with <see cref="BearerToken"/>.
    /// </summary>
    public string? BasicAuthUserInfo { get; set; }

    /// <summary>Returns the bearer token to send with each request (cache and refresh it yourself). Not with <see cref="BasicAuthUserInfo"/>.</summary>
    public Func<CancellationToken, Task<string>>? BearerToken { get; set; }

    /// <summary>How long one HTTP request may take before it counts as failed and is retried. Default 10 s.</summary>
    public TimeSpan RequestTimeout { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>
    /// How many times a request is tried again after a connection failure, a timeout, 408, 429 or 5xx, across all
    /// <see cref="Urls"/> (never after another 4xx). Default 2.
    /// </summary>
    public int MaxRetries { get; set; } = 2;

    /// <summary>The first back-off between retries; it doubles each time, with jitter. Default 100 ms.</summary>
    public TimeSpan RetryBackoff { get; set; } = TimeSpan.FromMilliseconds(100);

    /// <summary>The longest back-off between retries. Default 2 s.</summary>
    public TimeSpan MaxRetryBackoff { get; set; } = TimeSpan.FromSeconds(2);

    /// <summary>An <see cref="HttpClient"/> to send requests with (it is not disposed by the client); its own timeout should be no shorter than <see cref="RequestTimeout"/>.</summary>
    public HttpClient? HttpClient { get; set; }

    /// <summary>A handler for the client's own <see cref="System.Net.Http.HttpClient"/> (TLS, proxies); not disposed by the client. Not with <see cref="HttpClient"/>.</summary>
    public HttpMessageHandler? HttpMessageHandler { get; set; }

    /// <summary>
    /// Options from settings named as Confluent's <c>SchemaRegistryConfig</c> names them, with or without the
    /// <c>schema.registry.</c> prefix: <c>url</c> (comma-separated), <c>basic.auth.user.info</c>,
    /// <c>basic.auth.credentials.source</c> (<c>USER_INFO</c> only), <c>bearer.auth.token</c> (a static token),
    /// <c>bearer.auth.credentials.source</c> (<c>STATIC_TOKEN</c> only), <c>request.timeout.ms</c>, <c>max.retries</c>,
    /// <c>retries.wait.ms</c> and <c>retries.max.wait.ms</c>. From configuration:
    /// <c>FromSettings(configuration.GetSection("SchemaRegistry").AsEnumerable(makePathsRelative: true))</c>.
    /// </summary>
    /// <param name="settings">The settings; entries without a value (configuration sections) are skipped.</param>
    /// <returns>New options.</returns>
    /// <exception cref="ArgumentException">A setting this client does not know (a typo, or one of Confluent's it does not support), a value that is not valid for its setting, or no URL.</exception>
    public static RegistryClientOptions FromSettings(IEnumerable<KeyValuePair<string, string?>> settings)
    {
        if (settings is null)
        {
            throw new ArgumentNullException(nameof(settings));
        }

        var options = new RegistryClientOptions();
        foreach (KeyValuePair<string, string?> setting in settings)
        {
            if (setting.Value is not { } value)
            {
                continue;
            }

            const string Prefix = "schema.registry.";
            string key = setting.Key.StartsWith(Prefix, StringComparison.Ordinal) ? setting.Key.Substring(Prefix.Length) : setting.Key;
            switch (key)
            {
                case "url":
                    foreach (string url in value.Split(','))
                    {
                        if (url.Trim().Length > 0)
                        {
                            options.Urls.Add(url.Trim());
                        }
                    }

                    break;
                case "basic.auth.user.info":
                    options.BasicAuthUserInfo = value;
                    break;
                case "basic.auth.credentials.source":
                    Require(setting.Key, value, "USER_INFO");
                    break;
                case "bearer.auth.token":
                    options.BearerToken = _ => Task.FromResult(value);
                    break;
                case "bearer.auth.credentials.source":
                    Require(setting.Key, value, "STATIC_TOKEN");
                    break;
                case "request.timeout.ms":
                    options.RequestTimeout = TimeSpan.FromMilliseconds(Number(setting.Key, value, minimum: 1));
                    break;
                case "max.retries":
                    options.MaxRetries = Number(setting.Key, value, minimum: 0);
                    break;
                case "retries.wait.ms":
                    options.RetryBackoff = TimeSpan.FromMilliseconds(Number(setting.Key, value, minimum: 0));
                    break;
                case "retries.max.wait.ms":
                    options.MaxRetryBackoff = TimeSpan.FromMilliseconds(Number(setting.Key, value, minimum: 0));
                    break;
                default:
                    throw new ArgumentException("Unknown Schema Registry setting '" + setting.Key + "'.", nameof(settings));
            }
        }

        if (options.Urls.Count == 0)
        {
            throw new ArgumentException("The settings name no Schema Registry URL (schema.registry.url).", nameof(settings));
        }

        return options;
    }

    private static void Require(string key, string value, string supported)
    {
        if (!string.Equals(value, supported, StringComparison.OrdinalIgnoreCase))
        {
            throw new ArgumentException("The Schema Registry setting '" + key + "' is '" + value + "'; this client supports '" + supported + "' only.", nameof(key));
        }
    }

    private static int Number(string key, string value, int minimum) =>
        int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out int number) && number >= minimum
            ? number
            : throw new ArgumentException("The Schema Registry setting '" + key + "' is '" + value + "', not a whole number of at least " + minimum.ToString(CultureInfo.InvariantCulture) + ".", nameof(key));
}
