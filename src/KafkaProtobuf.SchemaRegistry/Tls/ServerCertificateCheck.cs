#if !NET
using System;
using System.Linq;
#endif
using System.Net.Security;
using System.Security.Cryptography.X509Certificates;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// Whether the registry's certificate is trusted: by the system's CAs, or, with
/// <see cref="RegistryClientOptions.TrustedCertificateAuthorities"/>, by those CAs only (as librdkafka's
/// <c>ssl.ca.location</c>); the host name must match either way.
/// </summary>
internal static class ServerCertificateCheck
{
    internal static bool IsTrusted(X509Certificate2? certificate, X509Chain? presented, SslPolicyErrors errors, X509Certificate2Collection authorities)
    {
        if (authorities.Count == 0)
        {
            return errors == SslPolicyErrors.None;
        }

        if (certificate is null || (errors & ~SslPolicyErrors.RemoteCertificateChainErrors) != SslPolicyErrors.None)
        {
            return false; // no certificate, or not this host's
        }

        using var chain = new X509Chain();
        chain.ChainPolicy.RevocationMode = X509RevocationMode.NoCheck;
        if (presented is not null)
        {
            foreach (X509ChainElement element in presented.ChainElements)
            {
                chain.ChainPolicy.ExtraStore.Add(element.Certificate); // the intermediates the server sent
            }
        }

#if NET
        chain.ChainPolicy.TrustMode = X509ChainTrustMode.CustomRootTrust;
        chain.ChainPolicy.CustomTrustStore.AddRange(authorities);
        return chain.Build(certificate);
#else
        chain.ChainPolicy.ExtraStore.AddRange(authorities);
        chain.ChainPolicy.VerificationFlags = X509VerificationFlags.AllowUnknownCertificateAuthority;
        if (!chain.Build(certificate))
        {
            return false;
        }

        // Unknown roots were allowed so that the chain builds; it counts only if it ends at one of the given CAs.
        X509Certificate2 root = chain.ChainElements[chain.ChainElements.Count - 1].Certificate;
        return authorities.Cast<X509Certificate2>().Any(authority => authority.RawData.AsSpan().SequenceEqual(root.RawData));
#endif
    }
}
