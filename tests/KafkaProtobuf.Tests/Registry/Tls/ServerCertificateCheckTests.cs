using System;
using System.Net.Security;
using System.Reflection;
using System.Security.Cryptography.X509Certificates;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Tests.Support;
using Xunit;

namespace KafkaProtobuf.Tests.Registry.Tls;

/// <summary>
/// The trust decision for a registry's certificate when <see cref="RegistryClientOptions.TrustedCertificateAuthorities"/>
/// are given, called as the TLS handshake calls it. These run against the net10.0 build, the net8.0 build
/// (Tests.OldestSupported) and the netstandard2.0 build (Tests.NetStandard), whose chain is built with unknown roots
/// allowed and then must end at one of the given CAs by its bytes.
/// </summary>
public sealed class ServerCertificateCheckTests : IClassFixture<ServerCertificateCheckTests.Certificates>
{
    private const SslPolicyErrors UntrustedBySystem = SslPolicyErrors.RemoteCertificateChainErrors;

    /// <summary>
    /// <c>ServerCertificateCheck.IsTrusted</c>, found by reflection: the registry package keeps its internals to itself
    /// (it shares source files with the core package, so letting tests see both would make their names ambiguous).
    /// </summary>
    private static readonly Func<X509Certificate2?, X509Chain?, SslPolicyErrors, X509Certificate2Collection, bool> Check =
        typeof(RegistryClient).Assembly.GetType("KafkaProtobuf.SchemaRegistry.ServerCertificateCheck", throwOnError: true)!
            .GetMethod("IsTrusted", BindingFlags.Static | BindingFlags.NonPublic)!
            .CreateDelegate<Func<X509Certificate2?, X509Chain?, SslPolicyErrors, X509Certificate2Collection, bool>>();

    private readonly Certificates _c;

    public ServerCertificateCheckTests(Certificates certificates) => _c = certificates;

    [Fact]
    public void ACertificateTheGivenCaIssued_IsTrusted() =>
        Assert.True(IsTrusted(_c.FromRoot, null, UntrustedBySystem, [_c.Root]));

    [Fact]
    public void ACertificateFromAnotherCa_IsRefused() =>
        Assert.False(IsTrusted(_c.FromStranger, null, UntrustedBySystem, [_c.Root]));

    [Fact]
    public void ACertificateFromTheGivenCa_ThatNamesAnotherHost_IsRefused() =>
        Assert.False(IsTrusted(_c.FromRoot, null, UntrustedBySystem | SslPolicyErrors.RemoteCertificateNameMismatch, [_c.Root]));

    [Fact]
    public void NoCertificate_IsRefused() =>
        Assert.False(IsTrusted(null, null, SslPolicyErrors.RemoteCertificateNotAvailable, [_c.Root]));

    [Fact]
    public void AnExpiredCertificateFromTheGivenCa_IsRefused() =>
        Assert.False(IsTrusted(_c.Expired, null, UntrustedBySystem, [_c.Root]));

    [Fact]
    public void AChainThroughAnIntermediate_IsTrusted_WhenTheServerSendsTheIntermediate()
    {
        using X509Chain presented = Presented(_c.BelowIntermediate, _c.Intermediate);

        Assert.True(IsTrusted(_c.BelowIntermediate, presented, UntrustedBySystem, [_c.Root]));
    }

    [Fact]
    public void AChainThroughAnIntermediate_IsRefused_WhenTheIntermediateIsMissing()
    {
        using X509Chain presented = Presented(_c.BelowIntermediate);

        Assert.False(IsTrusted(_c.BelowIntermediate, presented, UntrustedBySystem, [_c.Root]));
    }

    [Fact]
    public void AChainThroughAnIntermediate_IsTrusted_WhenTheBundleHoldsTheIntermediate() =>
        Assert.True(IsTrusted(_c.BelowIntermediate, null, UntrustedBySystem, [_c.Root, _c.Intermediate]));

    [Fact]
    public void AStrangersChainThatReusesTheGivenCasName_IsRefused()
    {
        // Same subject as the trusted root, another key: only the root's bytes (or key) can make it trusted.
        Assert.False(IsTrusted(_c.FromImpostor, null, UntrustedBySystem, [_c.Root]));
    }

    [Theory]
    [InlineData(SslPolicyErrors.None, true)]
    [InlineData(SslPolicyErrors.RemoteCertificateChainErrors, false)]
    [InlineData(SslPolicyErrors.RemoteCertificateNameMismatch, false)]
    public void WithoutGivenCas_TheHandshakesOwnVerdictDecides(SslPolicyErrors errors, bool trusted) =>
        Assert.Equal(trusted, IsTrusted(_c.FromRoot, null, errors, []));

    private static bool IsTrusted(X509Certificate2? certificate, X509Chain? presented, SslPolicyErrors errors, X509Certificate2[] authorities) =>
        Check(certificate, presented, errors, new X509Certificate2Collection(authorities));

    /// <summary>A chain as a server presents it: its certificate and the intermediates it sends, without the root.</summary>
    private static X509Chain Presented(X509Certificate2 certificate, params X509Certificate2[] intermediates)
    {
        var chain = new X509Chain();
        chain.ChainPolicy.RevocationMode = X509RevocationMode.NoCheck;
        chain.ChainPolicy.VerificationFlags = X509VerificationFlags.AllowUnknownCertificateAuthority;
        chain.ChainPolicy.ExtraStore.AddRange(intermediates);
        _ = chain.Build(certificate);
        return chain;
    }

    public sealed class Certificates : IDisposable
    {
        public Certificates()
        {
            Root = TestCertificates.NewAuthority("CN=Registry root CA");
            Intermediate = TestCertificates.NewIntermediate(Root, "CN=Registry issuing CA");
            FromRoot = TestCertificates.Issue(Root, "CN=127.0.0.1", server: true);
            BelowIntermediate = TestCertificates.Issue(Intermediate, "CN=127.0.0.1", server: true);
            Expired = TestCertificates.Issue(Root, "CN=127.0.0.1", server: true, notAfter: DateTimeOffset.UtcNow.AddHours(-1));
            Stranger = TestCertificates.NewAuthority("CN=Someone else's CA");
            FromStranger = TestCertificates.Issue(Stranger, "CN=127.0.0.1", server: true);
            Impostor = TestCertificates.NewAuthority("CN=Registry root CA");
            FromImpostor = TestCertificates.Issue(Impostor, "CN=127.0.0.1", server: true);
        }

        public X509Certificate2 Root { get; }

        public X509Certificate2 Intermediate { get; }

        public X509Certificate2 FromRoot { get; }

        public X509Certificate2 BelowIntermediate { get; }

        public X509Certificate2 Expired { get; }

        public X509Certificate2 Stranger { get; }

        public X509Certificate2 FromStranger { get; }

        public X509Certificate2 Impostor { get; }

        public X509Certificate2 FromImpostor { get; }

        public void Dispose()
        {
            foreach (X509Certificate2 certificate in new[] { Root, Intermediate, FromRoot, BelowIntermediate, Expired, Stranger, FromStranger, Impostor, FromImpostor })
            {
                certificate.Dispose();
            }
        }
    }
}
