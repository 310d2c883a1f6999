using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Net.Http;
using System.Security.Cryptography.X509Certificates;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;

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
    /// (Confluent's <c>basic.auth.user.info</c>). Not with <see cref="BearerToken"/> or <see cref="OAuth"/>.
    /// </summary>
    public string? BasicAuthUserInfo { get; set; }

    /// <summary>
    /// Returns the bearer token to send with each request (a static token, or one from Azure IMDS or a vault: cache and
    /// refresh it yourself; called once more after a 401). For OAuth client credentials use <see cref="OAuth"/>. Not with
    /// <see cref="BasicAuthUserInfo"/> or <see cref="OAuth"/>.
    /// </summary>
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

    /// <summary>The default <see cref="MaxResponseBytes"/>: 16 MiB.</summary>
    public const int DefaultMaxResponseBytes = 16 * 1024 * 1024;

    /// <summary>The default <see cref="MaxReferences"/>: 1,000.</summary>
    public const int DefaultMaxReferences = 1000;

    /// <summary>The default <see cref="MaxReferenceDepth"/>: 64.</summary>
    public const int DefaultMaxReferenceDepth = 64;

    /// <summary>
    /// The largest answer the client reads from the registry or the OAuth token endpoint; also the most a writer's
    /// schema and its references may take together. Default <see cref="DefaultMaxResponseBytes"/> (a real registry keeps
    /// schemas in a Kafka topic whose records are 1 MB by default). A registry's answer past it is not read further: for
    /// a writer's schema it is an answer that cannot be used (its records are bad data,
    /// <see cref="FrameErrorCode.UnusableWriterSchema"/>), never retried. At least 1,024.
    /// </summary>
    public int MaxResponseBytes { get; set; } = DefaultMaxResponseBytes;

    /// <summary>
    /// The most references (imports, at every level) a writer's schema may pull in; past it the schema cannot be used
    /// (<see cref="FrameErrorCode.UnusableWriterSchema"/>). Default <see cref="DefaultMaxReferences"/>.
    /// </summary>
    public int MaxReferences { get; set; } = DefaultMaxReferences;

    /// <summary>
    /// How deep a writer's schema's references may import one another (a file that imports a file that imports a file
    /// is depth 3); past it the schema cannot be used (<see cref="FrameErrorCode.UnusableWriterSchema"/>). Default
    /// <see cref="DefaultMaxReferenceDepth"/>.
    /// </summary>
    public int MaxReferenceDepth { get; set; } = DefaultMaxReferenceDepth;

    /// <summary>The most connections the client's own handler opens to one registry server (<c>connections.max.per.server</c>); <see langword="null"/>: the platform's default.</summary>
    public int? MaxConnectionsPerServer { get; set; }

    /// <summary>An <see cref="HttpClient"/> to send requests with (it is not disposed by the client); its own timeout should be no shorter than <see cref="RequestTimeout"/>.</summary>
    public HttpClient? HttpClient { get; set; }

    /// <summary>A handler for the client's own <see cref="System.Net.Http.HttpClient"/> (proxies, your own TLS set-up); not disposed by the client. Not with <see cref="HttpClient"/>, nor with the TLS options below (set them on your handler).</summary>
    public HttpMessageHandler? HttpMessageHandler { get; set; }

    /// <summary>
    /// OAuth client credentials: the client fetches, shares and refreshes the bearer token itself
    /// (<c>bearer.auth.credentials.source=OAUTHBEARER</c>). Not with <see cref="BasicAuthUserInfo"/> or <see cref="BearerToken"/>.
    /// </summary>
    public OAuthClientCredentials? OAuth { get; set; }

    /// <summary>Confluent Cloud's logical cluster of the registry, e.g. <c>lsrc-12345</c>, sent as the <c>target-sr-cluster</c> header (<c>bearer.auth.logical.cluster</c>).</summary>
    public string? LogicalCluster { get; set; }

    /// <summary>Confluent Cloud's identity pool the OAuth client maps to, e.g. <c>pool-AbCd</c>, sent as the <c>Confluent-Identity-Pool-Id</c> header (<c>bearer.auth.identity.pool.id</c>).</summary>
    public string? IdentityPoolId { get; set; }

    /// <summary>
    /// The CAs the registry's certificate must chain to (<c>ssl.ca.location</c>; load a PEM bundle with
    /// <see cref="RegistryCertificates.LoadAuthorities"/>). Empty (the default): the system's trusted CAs. Given: these
    /// only, as librdkafka's <c>ssl.ca.location</c> (Confluent's .NET client also accepts the system's).
    /// </summary>
    public X509Certificate2Collection TrustedCertificateAuthorities { get; } = new();

    /// <summary>A client certificate with its private key, for registries that require mutual TLS (<c>ssl.keystore.location</c>; see <see cref="RegistryCertificates.LoadClientCertificate"/>).</summary>
    public X509Certificate2? ClientCertificate { get; set; }

    /// <summary>
    /// Whether the registry's certificate is checked (<c>enable.ssl.certificate.verification</c>). Default
    /// <see langword="true"/>; off, anyone on the network path can read the credentials, so the client logs a warning
    /// when it is created. For a test registry only.
    /// </summary>
    public bool VerifyServerCertificate { get; set; } = true;

    /// <summary>The clock OAuth tokens' lifetimes are counted on; the system's by default (a fake one in tests).</summary>
    public TimeProvider TimeProvider { get; set; } = TimeProvider.System;

    /// <summary>
    /// Where the client logs warnings: when <see cref="VerifyServerCertificate"/> is off, and when a background refresh of
    /// the OAuth token failed (requests go on with the token in use). Nothing it logs holds a secret.
    /// </summary>
    public ILogger? Logger { get; set; }

    /// <summary>
    /// Options from settings named as Confluent's <c>SchemaRegistryConfig</c> names them, with or without the
    /// <c>schema.registry.</c> prefix: <c>url</c>, <c>basic.auth.*</c>, <c>bearer.auth.*</c> (static token and OAuth
    /// client credentials, Confluent Cloud's logical cluster and identity pool), <c>ssl.*</c>,
    /// <c>enable.ssl.certificate.verification</c>, timeouts and retries; every key and what is done with it is in the
    /// package's docs (docs/schema-registry.md). A key it cannot honour is refused by name, with the reason. From
    /// configuration: <c>FromSettings(configuration.GetSection("SchemaRegistry").AsEnumerable(makePathsRelative: true))</c>.
    /// </summary>
    /// <param name="settings">The settings; entries without a value (configuration sections) are skipped.</param>
    /// <returns>New options.</returns>
    /// <exception cref="ArgumentException">A setting this client does not know (a typo, or one of Confluent's it does not support), a value that is not valid for its setting, a certificate file that cannot be read, or no URL.</exception>
    public static RegistryClientOptions FromSettings(IEnumerable<KeyValuePair<string, string?>> settings) =>
        RegistrySettingsReader.Read(settings, kafkaClientSettings: null);

    /// <summary>
    /// <see cref="FromSettings(IEnumerable{KeyValuePair{string, string}})"/>, with the Kafka client's settings for
    /// <c>basic.auth.credentials.source=SASL_INHERIT</c>: basic authentication with their <c>sasl.username</c> and
    /// <c>sasl.password</c> (<c>sasl.mechanism</c> <c>PLAIN</c>, <c>SCRAM-SHA-256</c> or <c>SCRAM-SHA-512</c>), as
    /// Confluent's client does. Pass the consumer's or producer's config (a <c>ClientConfig</c> is such a list).
    /// </summary>
    /// <param name="settings">The registry's settings.</param>
    /// <param name="kafkaClientSettings">The Kafka client's settings; only the <c>sasl.*</c> ones are read.</param>
    /// <returns>New options.</returns>
    /// <exception cref="ArgumentException">As the other overload; or SASL_INHERIT with no username and password to inherit.</exception>
    public static RegistryClientOptions FromSettings(IEnumerable<KeyValuePair<string, string?>> settings, IEnumerable<KeyValuePair<string, string>> kafkaClientSettings) =>
        RegistrySettingsReader.Read(settings, kafkaClientSettings ?? throw new ArgumentNullException(nameof(kafkaClientSettings)));

    /// <summary>
    /// Every setting name <see cref="FromSettings(IEnumerable{KeyValuePair{string, string}})"/> reads or refuses by name,
    /// without the <c>schema.registry.</c> prefix: for configuration sources that can be asked by key but not listed.
    /// </summary>
    public static IReadOnlyList<string> SettingNames { get; } = Array.AsReadOnly(RegistrySettingsReader.Names);

    /// <summary>What the client is set to do, with every secret left out (user info, token, client secret, key store password).</summary>
    /// <returns>A description.</returns>
    public override string ToString()
    {
        string authentication = OAuth is not null ? OAuth.ToString()
            : BasicAuthUserInfo is { } userInfo ? "basic authentication as '" + userInfo.Split(':')[0] + "'"
            : BearerToken is not null ? "bearer token from a callback"
            : "no authentication";
        return "Schema registry " + string.Join(", ", Urls.Select(RegistryUrls.Shown)) + "; " + authentication
            + (LogicalCluster is null ? string.Empty : "; logical cluster " + LogicalCluster)
            + (IdentityPoolId is null ? string.Empty : "; identity pool " + IdentityPoolId)
            + (TrustedCertificateAuthorities.Count == 0 ? string.Empty : "; " + TrustedCertificateAuthorities.Count.ToString(CultureInfo.InvariantCulture) + " trusted CA(s)")
            + (ClientCertificate is null ? string.Empty : "; client certificate " + ClientCertificate.Subject)
            + (VerifyServerCertificate ? string.Empty : "; server certificate NOT verified");
    }
}
