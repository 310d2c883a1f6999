using System;
using System.IO;
using System.Security.Cryptography.X509Certificates;
using System.Text;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>Certificates from files, as Confluent's settings name them: PEM CA bundles and PKCS#12 key stores.</summary>
public static class RegistryCertificates
{
    private const string Begin = "-----BEGIN CERTIFICATE-----";
    private const string End = "-----END CERTIFICATE-----";

    /// <summary>Every certificate of a PEM file (a CA, or a bundle of roots and intermediates), or of a DER file holding one (<c>ssl.ca.location</c>).</summary>
    /// <param name="path">The file.</param>
    /// <returns>The certificates, at least one.</returns>
    /// <exception cref="ArgumentException">The file holds no certificate.</exception>
    /// <exception cref="IOException">The file cannot be read.</exception>
    public static X509Certificate2Collection LoadAuthorities(string path)
    {
        if (string.IsNullOrEmpty(path))
        {
            throw new ArgumentException("Give the CA file's path.", nameof(path));
        }

        byte[] bytes = File.ReadAllBytes(path);
        string text = Encoding.ASCII.GetString(bytes);
        var certificates = new X509Certificate2Collection();
        for (int start = text.IndexOf(Begin, StringComparison.Ordinal); start >= 0; start = text.IndexOf(Begin, start, StringComparison.Ordinal))
        {
            int end = text.IndexOf(End, start, StringComparison.Ordinal);
            if (end < 0)
            {
                throw new ArgumentException("The CA file '" + path + "' has a certificate without its END line.", nameof(path));
            }

            string base64 = text.Substring(start + Begin.Length, end - start - Begin.Length);
            try
            {
                certificates.Add(Load(Convert.FromBase64String(base64)));
            }
            catch (Exception e) when (e is FormatException or System.Security.Cryptography.CryptographicException)
            {
                // The documented exception for a file that is not what it should be, whatever part of it is broken.
                throw new ArgumentException("The CA file '" + path + "' has a certificate (number " + (certificates.Count + 1) + ") that is not one: " + e.Message, nameof(path), e);
            }

            start = end + End.Length;
        }

        if (certificates.Count == 0 && bytes.Length == 0)
        {
            // The pre-.NET 9 constructor makes an empty certificate of no bytes rather than refusing them.
            throw new ArgumentException("The CA file '" + path + "' is empty: it holds no PEM or DER certificate.", nameof(path));
        }

        if (certificates.Count == 0)
        {
            try
            {
                certificates.Add(Load(bytes)); // one DER certificate
            }
            catch (System.Security.Cryptography.CryptographicException e)
            {
                throw new ArgumentException("The CA file '" + path + "' holds no PEM or DER certificate.", nameof(path), e);
            }
        }

        return certificates;
    }

    /// <summary>A client certificate with its private key from a PKCS#12 file (<c>ssl.keystore.location</c>, <c>ssl.keystore.password</c>).</summary>
    /// <param name="path">The file.</param>
    /// <param name="password">Its password; <see langword="null"/> for none.</param>
    /// <returns>The certificate.</returns>
    /// <exception cref="ArgumentException">The file is not a PKCS#12 key store with a private key, or the password is wrong (the message never holds it).</exception>
    public static X509Certificate2 LoadClientCertificate(string path, string? password)
    {
        if (string.IsNullOrEmpty(path))
        {
            throw new ArgumentException("Give the key store's path.", nameof(path));
        }

        X509Certificate2 certificate;
        try
        {
#if NET9_0_OR_GREATER
            certificate = X509CertificateLoader.LoadPkcs12FromFile(path, password);
#else
            certificate = new X509Certificate2(path, password);
#endif
        }
        catch (System.Security.Cryptography.CryptographicException e)
        {
            throw new ArgumentException("The key store '" + path + "' could not be opened as PKCS#12 (a wrong ssl.keystore.password, or another format): " + e.Message, nameof(path), e);
        }

        if (!certificate.HasPrivateKey)
        {
            certificate.Dispose();
            throw new ArgumentException("The key store '" + path + "' has a certificate but no private key: a client certificate needs one.", nameof(path));
        }

        return certificate;
    }

    private static X509Certificate2 Load(byte[] der) =>
#if NET9_0_OR_GREATER
        X509CertificateLoader.LoadCertificate(der);
#else
        new(der);
#endif
}
