using System;
using System.IO;
using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace KafkaProtobuf.Tests.Support;

/// <summary>
/// Certificates made in the test, never read from the machine: a CA, a server certificate it issues for 127.0.0.1, a
/// client certificate from a second CA (mutual TLS), and a CA no one trusts; written as a PEM CA file and a PKCS#12
/// key store when a test reads them from settings. Disposing deletes the files.
/// </summary>
public sealed class TestCertificates : IDisposable
{
    public const string KeyStorePassword = "k3ystore-pa55";

    private readonly string _folder = Path.Combine(Path.GetTempPath(), "kafkaprotobuf-tls-" + Guid.NewGuid().ToString("N"));

    public TestCertificates()
    {
        Directory.CreateDirectory(_folder);
        Authority = NewAuthority("CN=KafkaProtobuf test CA");
        Server = Issue(Authority, "CN=127.0.0.1", server: true);
        ClientAuthority = NewAuthority("CN=KafkaProtobuf test client CA");
        Client = Issue(ClientAuthority, "CN=orders-consumer", server: false);
        Stranger = NewAuthority("CN=Someone else's CA");
        AuthorityPemPath = Path.Combine(_folder, "ca.pem");
        File.WriteAllText(AuthorityPemPath, Authority.ExportCertificatePem() + "\n");
        StrangerPemPath = Path.Combine(_folder, "stranger.pem");
        File.WriteAllText(StrangerPemPath, Stranger.ExportCertificatePem() + "\n");
        ClientKeyStorePath = Path.Combine(_folder, "client.p12");
        File.WriteAllBytes(ClientKeyStorePath, Client.Export(X509ContentType.Pkcs12, KeyStorePassword));
    }

    public X509Certificate2 Authority { get; }

    public X509Certificate2 Server { get; }

    public X509Certificate2 ClientAuthority { get; }

    public X509Certificate2 Client { get; }

    public X509Certificate2 Stranger { get; }

    public string AuthorityPemPath { get; }

    public string StrangerPemPath { get; }

    public string ClientKeyStorePath { get; }

    public void Dispose()
    {
        foreach (X509Certificate2 certificate in new[] { Authority, Server, ClientAuthority, Client, Stranger })
        {
            certificate.Dispose();
        }

        Directory.Delete(_folder, recursive: true);
    }

    /// <summary>A self-signed CA.</summary>
    public static X509Certificate2 NewAuthority(string subject)
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        CertificateRequest request = AuthorityRequest(subject, key);
        return request.CreateSelfSigned(DateTimeOffset.UtcNow.AddDays(-1), DateTimeOffset.UtcNow.AddDays(30));
    }

    /// <summary>A CA that <paramref name="root"/> issues, with its private key, to issue certificates below it.</summary>
    public static X509Certificate2 NewIntermediate(X509Certificate2 root, string subject)
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        CertificateRequest request = AuthorityRequest(subject, key);
        request.CertificateExtensions.Add(X509AuthorityKeyIdentifierExtension.CreateFromCertificate(root, includeKeyIdentifier: true, includeIssuerAndSerial: false));
        using X509Certificate2 issued = request.Create(root, DateTimeOffset.UtcNow.AddHours(-2), DateTimeOffset.UtcNow.AddDays(20), NewSerial());
        return WithKey(issued, key);
    }

    /// <summary>
    /// A certificate <paramref name="authority"/> issues: for a server, naming 127.0.0.1, or <paramref name="dnsName"/>
    /// instead; valid from an hour ago for a week unless <paramref name="notAfter"/> says otherwise (one in the past:
    /// from just after the issuer's start until then).
    /// </summary>
    public static X509Certificate2 Issue(X509Certificate2 authority, string subject, bool server, string? dnsName = null, DateTimeOffset? notAfter = null)
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest(subject, key, HashAlgorithmName.SHA256);
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(false, false, 0, critical: true));
        request.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.DigitalSignature, critical: true));
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([new Oid(server ? "1.3.6.1.5.5.7.3.1" : "1.3.6.1.5.5.7.3.2")], critical: false));
        request.CertificateExtensions.Add(X509AuthorityKeyIdentifierExtension.CreateFromCertificate(authority, includeKeyIdentifier: true, includeIssuerAndSerial: false));
        if (server)
        {
            var names = new SubjectAlternativeNameBuilder();
            if (dnsName is null)
            {
                names.AddIpAddress(IPAddress.Loopback);
            }
            else
            {
                names.AddDnsName(dnsName);
            }

            request.CertificateExtensions.Add(names.Build());
        }

        // Within the issuer's own validity, which a child may not start before.
        DateTimeOffset issuerStart = new DateTimeOffset(authority.NotBefore.ToUniversalTime(), TimeSpan.Zero).AddMinutes(1);
        DateTimeOffset notBefore = notAfter is { } end && end < DateTimeOffset.UtcNow ? issuerStart : DateTimeOffset.UtcNow.AddHours(-1);
        using X509Certificate2 issued = request.Create(authority, notBefore, notAfter ?? DateTimeOffset.UtcNow.AddDays(7), NewSerial());
        return WithKey(issued, key);
    }

    private static CertificateRequest AuthorityRequest(string subject, ECDsa key)
    {
        var request = new CertificateRequest(subject, key, HashAlgorithmName.SHA256);
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(certificateAuthority: true, hasPathLengthConstraint: false, pathLengthConstraint: 0, critical: true));
        request.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.KeyCertSign | X509KeyUsageFlags.CrlSign, critical: true));
        request.CertificateExtensions.Add(new X509SubjectKeyIdentifierExtension(request.PublicKey, critical: false));
        return request;
    }

    private static byte[] NewSerial()
    {
        byte[] serial = new byte[8];
        RandomNumberGenerator.Fill(serial);
        serial[0] &= 0x7f; // positive
        return serial;
    }

    private static X509Certificate2 WithKey(X509Certificate2 issued, ECDsa key)
    {
        using X509Certificate2 withKey = issued.CopyWithPrivateKey(key);

        // Through PKCS#12, so that SslStream on Linux can use the key (an ephemeral key cannot always be).
#if NET9_0_OR_GREATER
        return X509CertificateLoader.LoadPkcs12(withKey.Export(X509ContentType.Pkcs12), null);
#else
        return new X509Certificate2(withKey.Export(X509ContentType.Pkcs12), (string?)null);
#endif
    }
}
