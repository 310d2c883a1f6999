using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Security.Cryptography.X509Certificates;
using System.Threading.Tasks;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using Xunit;

namespace KafkaProtobuf.Tests.Registry.Tls;

/// <summary>
/// The registry client over HTTPS, set up by Confluent's setting names, against the in-process registry serving TLS with
/// certificates made in the test: a private CA trusted by <c>ssl.ca.location</c>, an unknown CA refused, verification
/// off only when said (and warned about), mutual TLS with a PKCS#12 client certificate.
/// </summary>
public sealed class RegistryTlsTests : IClassFixture<RegistryTlsTests.Certificates>
{
    private readonly TestCertificates _certificates;

    public RegistryTlsTests(Certificates certificates) => _certificates = certificates.Value;

    private static RegistryClient FromSettings(params (string Key, string Value)[] settings) =>
        new(RegistryClientOptions.FromSettings(settings.Select(s => new KeyValuePair<string, string?>(s.Key, s.Value)).Append(new("max.retries", "0"))));

    private static Task<RegistrySchema> Register(RegistryClient client) =>
        client.RegisterAsync("orders-value", "syntax = \"proto3\"; message Order {}", "PROTOBUF", [], normalize: false);

    [Fact]
    public async Task APrivateCa_FromSslCaLocation_IsTrusted()
    {
        using var registry = InProcessSchemaRegistry.StartHttps(_certificates.Server);
        using RegistryClient client = FromSettings(("schema.registry.url", registry.Url), ("schema.registry.ssl.ca.location", _certificates.AuthorityPemPath));

        RegistrySchema registered = await Register(client);

        Assert.StartsWith("https://", registry.Url, StringComparison.Ordinal);
        Assert.Equal(1, registered.Id);
        Assert.Equal(0, registry.FailedHandshakes);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task ACertificateFromAnUnknownCa_IsRefused_AsAnUnreachableRegistry(bool withAnotherCa)
    {
        using var registry = InProcessSchemaRegistry.StartHttps(_certificates.Server);
        using RegistryClient client = withAnotherCa
            ? FromSettings(("url", registry.Url), ("ssl.ca.location", _certificates.StrangerPemPath))
            : FromSettings(("url", registry.Url));

        var e = await Assert.ThrowsAsync<SchemaRegistryRequestException>(() => Register(client));

        Assert.IsNotType<SchemaRegistryAuthenticationException>(e);
        Assert.Null(e.StatusCode);
        Assert.Contains("SSL", e.Message, StringComparison.OrdinalIgnoreCase);
        Assert.Equal(0, registry.TotalRequestCount);
    }

    public static TheoryData<string> RefusedFromTheTrustedCa => new() { "another host", "expired" };

    [Theory]
    [MemberData(nameof(RefusedFromTheTrustedCa))]
    public async Task ACertificateFromTheTrustedCa_ForAnotherHostOrExpired_IsRefused_AsAnUnreachableRegistry(string which)
    {
        using X509Certificate2 certificate = which == "expired"
            ? TestCertificates.Issue(_certificates.Authority, "CN=127.0.0.1", server: true, notAfter: DateTimeOffset.UtcNow.AddHours(-1))
            : TestCertificates.Issue(_certificates.Authority, "CN=registry.example.com", server: true, dnsName: "registry.example.com");
        using var registry = InProcessSchemaRegistry.StartHttps(certificate);
        using RegistryClient client = FromSettings(("url", registry.Url), ("ssl.ca.location", _certificates.AuthorityPemPath));

        var e = await Assert.ThrowsAsync<SchemaRegistryRequestException>(() => Register(client));

        Assert.IsNotType<SchemaRegistryAuthenticationException>(e);
        Assert.Null(e.StatusCode);
        Assert.Contains("SSL", e.Message, StringComparison.OrdinalIgnoreCase);
        Assert.Equal(0, registry.TotalRequestCount);
    }

    [Fact]
    public async Task AServerCertificateBelowAnIntermediate_IsTrusted_WhenTheCaFileHoldsRootAndIntermediate()
    {
        // A CA bundle as issuers hand them out: the server (SslStream) may send only its own certificate.
        using X509Certificate2 intermediate = TestCertificates.NewIntermediate(_certificates.Authority, "CN=Registry issuing CA");
        using X509Certificate2 server = TestCertificates.Issue(intermediate, "CN=127.0.0.1", server: true);
        string bundle = Path.Combine(Path.GetTempPath(), "kafkaprotobuf-bundle-" + Guid.NewGuid().ToString("N") + ".pem");
        File.WriteAllText(bundle, _certificates.Authority.ExportCertificatePem() + "\n" + intermediate.ExportCertificatePem() + "\n");
        try
        {
            using var registry = InProcessSchemaRegistry.StartHttps(server);
            using RegistryClient client = FromSettings(("url", registry.Url), ("ssl.ca.location", bundle));
            using RegistryClient rootOnly = FromSettings(("url", registry.Url), ("ssl.ca.location", _certificates.AuthorityPemPath));

            Assert.Equal(1, (await Register(client)).Id);
            await Assert.ThrowsAsync<SchemaRegistryRequestException>(() => rootOnly.GetSchemaAsync(1));
        }
        finally
        {
            File.Delete(bundle);
        }
    }

    [Fact]
    public async Task VerificationOff_OnlyWhenSaid_AndWarnedAbout()
    {
        using var registry = InProcessSchemaRegistry.StartHttps(_certificates.Server);
        using var log = new CapturedLog();
        RegistryClientOptions options = RegistryClientOptions.FromSettings([new("url", registry.Url), new("enable.ssl.certificate.verification", "false")]);
        options.Logger = log.CreateLogger("registry");
        using var client = new RegistryClient(options);

        await Register(client);

        string warning = Assert.Single(log.Lines, l => l.Contains("NOT verified", StringComparison.Ordinal));
        Assert.Contains(registry.Url, warning, StringComparison.Ordinal);
        Assert.True(RegistryClientOptions.FromSettings([new("url", registry.Url)]).VerifyServerCertificate);
    }

    [Fact]
    public async Task MutualTls_AClientCertificateFromAPkcs12KeyStore_IsShown_AndWithoutOneTheRegistryRefuses()
    {
        using var registry = InProcessSchemaRegistry.StartHttps(_certificates.Server, clientCertificateAuthority: _certificates.ClientAuthority);
        using RegistryClient withCertificate = FromSettings(
            ("url", registry.Url),
            ("ssl.ca.location", _certificates.AuthorityPemPath),
            ("ssl.keystore.location", _certificates.ClientKeyStorePath),
            ("ssl.keystore.password", TestCertificates.KeyStorePassword));
        using RegistryClient without = FromSettings(("url", registry.Url), ("ssl.ca.location", _certificates.AuthorityPemPath));

        Assert.Equal(1, (await Register(withCertificate)).Id);
        await Assert.ThrowsAsync<SchemaRegistryRequestException>(() => without.GetSchemaAsync(1));
        Assert.True(registry.FailedHandshakes >= 1);
    }

    [Fact]
    public void AWrongKeyStorePassword_IsRefused_WithoutEchoingIt()
    {
        var e = Assert.Throws<ArgumentException>(() => RegistryClientOptions.FromSettings(
            [new("url", "https://127.0.0.1:1"), new("ssl.keystore.location", _certificates.ClientKeyStorePath), new("ssl.keystore.password", "wrong-Pa55word")]));

        Assert.Contains("ssl.keystore.password", e.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("wrong-Pa55word", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void TlsOptions_WithYourOwnHandler_AreRefused()
    {
        using var handler = new System.Net.Http.HttpClientHandler();
        var options = new RegistryClientOptions { Urls = { "https://127.0.0.1:1" }, HttpMessageHandler = handler, VerifyServerCertificate = false };

        Assert.Throws<ArgumentException>(() => new RegistryClient(options));
    }

    /// <summary>One set of certificates for the class: making keys is the slow part.</summary>
    public sealed class Certificates : IDisposable
    {
        public TestCertificates Value { get; } = new();

        public void Dispose() => Value.Dispose();
    }
}
