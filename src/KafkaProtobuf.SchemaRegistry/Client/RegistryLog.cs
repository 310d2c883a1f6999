using System;
using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>What the registry client logs; never a secret or token.</summary>
internal static class RegistryLog
{
    internal static readonly Action<ILogger, string, Exception?> VerificationOff = LoggerMessage.Define<string>(
        LogLevel.Warning,
        new EventId(1, "RegistryCertificateNotVerified"),
        "Schema registry client for {Urls}: the registry's TLS certificate is NOT verified (enable.ssl.certificate.verification=false); anyone on the network path can read the credentials and change the schemas. For a test registry only.");

    internal static readonly Action<ILogger, string, string, Exception?> TokenRefreshFailed = LoggerMessage.Define<string, string>(
        LogLevel.Warning,
        new EventId(2, "RegistryTokenRefreshFailed"),
        "Schema registry client: the background refresh of the OAuth token from {TokenEndpoint} failed ({Reason}); requests go on with the token in use, and the next one tries again.");
}
