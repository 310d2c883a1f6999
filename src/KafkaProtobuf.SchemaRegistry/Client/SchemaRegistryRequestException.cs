using System;
using System.Globalization;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// The one exception a <see cref="RegistryClient"/> throws for a request that failed: the registry answered an error
/// (<see cref="StatusCode"/>, its <see cref="ErrorCode"/> such as 40401, 40403, 42201 or 40901, and its
/// <see cref="RegistryMessage"/>), or it could not be reached or answered nothing usable in time (no status). Never a
/// bare <c>HttpRequestException</c>, <c>TaskCanceledException</c> or <c>JsonException</c>: those are the inner exception.
/// A refusal of the credentials is the derived <see cref="SchemaRegistryAuthenticationException"/>.
/// </summary>
public class SchemaRegistryRequestException : Exception
{
    /// <summary>Creates the exception.</summary>
    /// <param name="url">The request's URL (no credentials).</param>
    /// <param name="statusCode">The HTTP status, or <see langword="null"/> when no answer came.</param>
    /// <param name="errorCode">The registry's <c>error_code</c>, when its answer had one.</param>
    /// <param name="registryMessage">The registry's <c>message</c>, or what went wrong.</param>
    /// <param name="innerException">The transport's or parser's exception, if any.</param>
    public SchemaRegistryRequestException(string url, int? statusCode, int? errorCode, string registryMessage, Exception? innerException)
        : this(Describe(url, statusCode, errorCode, registryMessage), url, statusCode, errorCode, registryMessage, innerException)
    {
    }

    /// <summary>Creates the exception with a message of the derived type's own.</summary>
    /// <param name="message">The exception's message.</param>
    /// <param name="url">The request's URL (no credentials).</param>
    /// <param name="statusCode">The HTTP status, or <see langword="null"/> when no answer came.</param>
    /// <param name="errorCode">The registry's <c>error_code</c>, when its answer had one.</param>
    /// <param name="registryMessage">The registry's <c>message</c>, or what went wrong.</param>
    /// <param name="innerException">The transport's or parser's exception, if any.</param>
    protected SchemaRegistryRequestException(string message, string url, int? statusCode, int? errorCode, string registryMessage, Exception? innerException)
        : base(message, innerException)
    {
        Url = url;
        StatusCode = statusCode;
        ErrorCode = errorCode;
        RegistryMessage = registryMessage;
    }

    /// <summary>The request's URL.</summary>
    public string Url { get; }

    /// <summary>The HTTP status; <see langword="null"/> when the registry could not be reached or did not answer in time.</summary>
    public int? StatusCode { get; }

    /// <summary>The registry's <c>error_code</c> (e.g. 40401 subject not found, 40403 schema not found, 42201 invalid schema, 40901 incompatible).</summary>
    public int? ErrorCode { get; }

    /// <summary>The registry's <c>message</c>, or a description of what failed.</summary>
    public string RegistryMessage { get; }

    /// <summary>Whether the registry said the subject, version or schema does not exist (404 with 40401, 40402 or 40403).</summary>
    public bool IsNotFound => StatusCode == 404 && ErrorCode is 40401 or 40402 or 40403;

    private static string Describe(string url, int? statusCode, int? errorCode, string message) =>
        statusCode is null
            ? "Schema registry request " + url + " failed: " + message
            : string.Format(CultureInfo.InvariantCulture, "Schema registry answered {0}{1} to {2}: {3}", statusCode, errorCode is null ? string.Empty : " (error code " + errorCode.Value.ToString(CultureInfo.InvariantCulture) + ")", url, message);
}
