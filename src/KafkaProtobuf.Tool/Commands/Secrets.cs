using System;
using System.Collections.Generic;
using System.IO;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>
/// Secrets the tool is given: on the command line (which <c>ps</c> and shell history show, so it warns), in a file, or in
/// an environment variable. The most explicit wins: the argument, then the file, then the environment.
/// </summary>
internal static class Secrets
{
    /// <summary>Registry user:password (basic authentication).</summary>
    public const string BasicAuthVariable = "KAFKA_PROTOBUF_REGISTRY_BASIC_AUTH";

    /// <summary>Registry bearer token.</summary>
    public const string BearerTokenVariable = "KAFKA_PROTOBUF_REGISTRY_BEARER_TOKEN";

    /// <summary>librdkafka properties that hold a secret: given with <c>-X</c>, the tool warns.</summary>
    private static readonly HashSet<string> SecretProperties = new(StringComparer.Ordinal)
    {
        "sasl.password", "sasl.oauthbearer.client.secret", "sasl.oauthbearer.config", "ssl.key.password", "ssl.key.pem",
        "ssl.keystore.password", "ssl_key", "sasl.kerberos.keytab",
    };

    /// <summary>The secret from the argument, the file or the variable (in that order), or null; a warning when it came as an argument.</summary>
    /// <exception cref="ArgumentException">The file cannot be read.</exception>
    public static string? Read(string? argument, string argumentName, FileInfo? file, string variable, Action<string> warn)
    {
        if (argument is not null)
        {
            warn($"{argumentName} puts a secret on the command line, where ps and the shell's history show it: give it in a file ({argumentName}-file FILE) or in {variable}");
            return argument;
        }

        if (file is not null)
        {
            try
            {
                return File.ReadAllText(file.FullName).Trim();
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                throw new ArgumentException($"cannot read {argumentName}-file {file.FullName}: {e.Message}", e);
            }
        }

        return Environment.GetEnvironmentVariable(variable) is { Length: > 0 } value ? value : null;
    }

    /// <summary>Whether a librdkafka property holds a secret (<c>-X sasl.password=...</c> draws a warning).</summary>
    public static bool IsSecretProperty(string name) => SecretProperties.Contains(name);

    /// <summary>
    /// A librdkafka properties file, as <c>kcat -F</c> and Kafka's own tools read them: <c>name=value</c> lines, <c>#</c>
    /// comments, blank lines ignored.
    /// </summary>
    /// <exception cref="ArgumentException">The file cannot be read, or a line is not name=value (the line's number only: values may be secret).</exception>
    public static IEnumerable<KeyValuePair<string, string>> ReadProperties(FileInfo file)
    {
        string[] lines;
        try
        {
            lines = File.ReadAllLines(file.FullName);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new ArgumentException($"cannot read {file.FullName}: {e.Message}", e);
        }

        var properties = new List<KeyValuePair<string, string>>();
        for (int i = 0; i < lines.Length; i++)
        {
            string line = lines[i].Trim();
            if (line.Length == 0 || line[0] == '#')
            {
                continue;
            }

            int equals = line.IndexOf('=', StringComparison.Ordinal);
            if (equals <= 0)
            {
                throw new ArgumentException($"{file.FullName}, line {i + 1}: expected name=value");
            }

            properties.Add(new KeyValuePair<string, string>(line[..equals].Trim(), line[(equals + 1)..].Trim()));
        }

        return properties;
    }
}
