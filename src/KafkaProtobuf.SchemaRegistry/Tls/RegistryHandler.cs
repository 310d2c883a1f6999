using System.Net.Http;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>The client's own HTTP handler, with the TLS options: trusted CAs, a client certificate, verification off.</summary>
internal static class RegistryHandler
{
    internal static HttpClientHandler Create(RegistryClientOptions options)
    {
        var handler = new HttpClientHandler();
        if (options.MaxConnectionsPerServer is { } connections)
        {
            handler.MaxConnectionsPerServer = connections;
        }

        if (options.ClientCertificate is { } certificate)
        {
            handler.ClientCertificateOptions = ClientCertificateOption.Manual;
            handler.ClientCertificates.Add(certificate);
        }

        if (!options.VerifyServerCertificate)
        {
#pragma warning disable CA5359 // Off only when the user said so (enable.ssl.certificate.verification=false), and logged as a warning.
            handler.ServerCertificateCustomValidationCallback = static (_, _, _, _) => true;
#pragma warning restore CA5359
        }
        else if (options.TrustedCertificateAuthorities.Count > 0)
        {
            var authorities = new System.Security.Cryptography.X509Certificates.X509Certificate2Collection(options.TrustedCertificateAuthorities);
            handler.ServerCertificateCustomValidationCallback = (_, certificate, chain, errors) => ServerCertificateCheck.IsTrusted(certificate, chain, errors, authorities);
        }

        return handler;
    }
}
