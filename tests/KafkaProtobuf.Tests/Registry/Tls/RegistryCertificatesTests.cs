using System;
using System.IO;
using System.Linq;
using System.Security.Cryptography.X509Certificates;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Tests.Support;
using Xunit;

namespace KafkaProtobuf.Tests.Registry.Tls;

/// <summary>
/// Certificates from the files Confluent's settings name (<c>ssl.ca.location</c>, <c>ssl.keystore.location</c>): PEM
/// bundles as tools write them, DER, and files that are broken or hostile, which must be refused as
/// <see cref="ArgumentException"/> naming the file. Run against every build of the registry package.
/// </summary>
public sealed class RegistryCertificatesTests : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("kafkaprotobuf-certificates-").FullName;
    private readonly X509Certificate2 _root = TestCertificates.NewAuthority("CN=Bundle root");
    private readonly X509Certificate2 _intermediate;
    private readonly X509Certificate2 _server;

    public RegistryCertificatesTests()
    {
        _intermediate = TestCertificates.NewIntermediate(_root, "CN=Bundle intermediate");
        _server = TestCertificates.Issue(_intermediate, "CN=127.0.0.1", server: true);
    }

    public void Dispose()
    {
        _root.Dispose();
        _intermediate.Dispose();
        _server.Dispose();
        Directory.Delete(_folder, recursive: true);
    }

    private string Write(string name, string text)
    {
        string path = Path.Combine(_folder, name);
        File.WriteAllText(path, text);
        return path;
    }

    private string Write(string name, byte[] bytes)
    {
        string path = Path.Combine(_folder, name);
        File.WriteAllBytes(path, bytes);
        return path;
    }

    [Fact]
    public void APemBundle_WithTextBetweenItsCertificates_GivesEachInOrder()
    {
        // As `openssl pkcs12 -nokeys` and CA bundles write them: attributes and comments around the blocks, CRLF lines.
        string path = Write("bundle.pem", string.Join(
            "\r\n",
            "# Registry CA bundle",
            "Bag Attributes",
            "    friendlyName: root",
            _root.ExportCertificatePem(),
            "subject=CN = Bundle intermediate",
            _intermediate.ExportCertificatePem().Replace("\n", "\r\n", StringComparison.Ordinal),
            string.Empty));

        X509Certificate2Collection loaded = RegistryCertificates.LoadAuthorities(path);

        Assert.Equal([_root.Thumbprint, _intermediate.Thumbprint], loaded.Cast<X509Certificate2>().Select(c => c.Thumbprint));
    }

    [Fact]
    public void ADerFile_GivesItsOneCertificate()
    {
        string path = Write("ca.der", _root.RawData);

        X509Certificate2 loaded = Assert.Single(RegistryCertificates.LoadAuthorities(path).Cast<X509Certificate2>());

        Assert.Equal(_root.Thumbprint, loaded.Thumbprint);
    }

    [Fact]
    public void APemCertificateWithoutItsEndLine_IsRefused_NamingTheFile()
    {
        string pem = _root.ExportCertificatePem();
        string path = Write("cut.pem", pem[..pem.IndexOf("-----END", StringComparison.Ordinal)]);

        var e = Assert.Throws<ArgumentException>(() => RegistryCertificates.LoadAuthorities(path));

        Assert.Contains(path, e.Message, StringComparison.Ordinal);
        Assert.Contains("without its END line", e.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("not base64 at all: ***")]
    [InlineData("AAAAAAAAAAAA")] // base64, but no certificate
    public void APemBlockThatIsNoCertificate_IsRefused_AsTheDocumentedException(string body)
    {
        string path = Write("broken.pem", _root.ExportCertificatePem() + "\n-----BEGIN CERTIFICATE-----\n" + body + "\n-----END CERTIFICATE-----\n");

        var e = Assert.Throws<ArgumentException>(() => RegistryCertificates.LoadAuthorities(path));

        Assert.Contains(path, e.Message, StringComparison.Ordinal);
        Assert.Contains("number 2", e.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(new byte[0])]
    [InlineData(new byte[] { 0x30, 0x82, 0xff, 0xff, 0x01 })]
    public void AFileWithNoPemOrDerCertificate_IsRefused(byte[] bytes)
    {
        string path = Write("nothing.crt", bytes);

        var e = Assert.Throws<ArgumentException>(() => RegistryCertificates.LoadAuthorities(path));

        Assert.Contains("holds no PEM or DER certificate", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AMissingFile_IsAnIOException() =>
        Assert.ThrowsAny<IOException>(() => RegistryCertificates.LoadAuthorities(Path.Combine(_folder, "absent.pem")));

    [Fact]
    public void AKeyStoreWithItsPrivateKey_GivesTheClientCertificate()
    {
        string path = Write("client.p12", _server.Export(X509ContentType.Pkcs12, "secret"));

        using X509Certificate2 loaded = RegistryCertificates.LoadClientCertificate(path, "secret");

        Assert.True(loaded.HasPrivateKey);
        Assert.Equal(_server.Thumbprint, loaded.Thumbprint);
    }

    [Fact]
    public void AKeyStoreWithoutAPrivateKey_IsRefused()
    {
        using X509Certificate2 withoutKey = CertificateWithoutKey(_server);
        string path = Write("no-key.p12", withoutKey.Export(X509ContentType.Pkcs12, "secret"));

        var e = Assert.Throws<ArgumentException>(() => RegistryCertificates.LoadClientCertificate(path, "secret"));

        Assert.Contains("no private key", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void APemFileGivenAsAKeyStore_IsRefused_WithoutEchoingThePassword()
    {
        string path = Write("client.pem", _server.ExportCertificatePem());

        var e = Assert.Throws<ArgumentException>(() => RegistryCertificates.LoadClientCertificate(path, "pa55-secret"));

        // .NET 9+ refuses the format; the netstandard2.0 build's loader reads the certificate and finds no key.
        Assert.Contains(path, e.Message, StringComparison.Ordinal);
        Assert.True(e.Message.Contains("could not be opened as PKCS#12", StringComparison.Ordinal) || e.Message.Contains("no private key", StringComparison.Ordinal), e.Message);
        Assert.DoesNotContain("pa55-secret", e.Message, StringComparison.Ordinal);
    }

    private static X509Certificate2 CertificateWithoutKey(X509Certificate2 certificate) =>
#if NET9_0_OR_GREATER
        X509CertificateLoader.LoadCertificate(certificate.RawData);
#else
        new(certificate.RawData);
#endif
}
