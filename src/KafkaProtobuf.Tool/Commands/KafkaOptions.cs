using System;
using System.Collections.Generic;
using System.CommandLine;
using System.IO;
using Confluent.Kafka;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>How the commands that talk to Kafka reach it: bootstrap servers, -X properties and a -F file of them.</summary>
internal sealed class KafkaOptions
{
    public Option<string> Servers { get; } = new("--bootstrap-servers", "-b") { Description = "Kafka bootstrap servers, host:port[,host:port].", Required = true, HelpName = "host:port" };

    public Option<string[]> Property { get; } = new("-X") { Description = "A librdkafka property, name=value (security settings, say; a secret is better in a --kafka-config file, which ps and shell history do not show).", HelpName = "name=value", AllowMultipleArgumentsPerToken = false };

    public Option<FileInfo?> ConfigFile { get; } = new("--kafka-config", "-F") { Description = "A file of librdkafka properties, name=value lines (# for comments), as kcat -F reads them; -X wins over it.", HelpName = "file" };

    public void AddTo(Command command)
    {
        command.Add(Servers);
        command.Add(Property);
        command.Add(ConfigFile);
    }

    /// <summary>Sets the servers, then the file's properties, then the -X ones, on <paramref name="config"/>; <paramref name="warn"/> hears of a secret given as an argument.</summary>
    /// <exception cref="ArgumentException">The file cannot be read, or an -X argument is not name=value.</exception>
    public void ApplyTo(ClientConfig config, ParseResult result, Action<string> warn)
    {
        config.BootstrapServers = result.GetRequiredValue(Servers);
        if (result.GetValue(ConfigFile) is { } file)
        {
            foreach (KeyValuePair<string, string> setting in Secrets.ReadProperties(file))
            {
                config.Set(setting.Key, setting.Value);
            }
        }

        foreach (string setting in result.GetValue(Property) ?? [])
        {
            int equals = setting.IndexOf('=', StringComparison.Ordinal);
            if (equals <= 0)
            {
                throw new ArgumentException("an -X argument is not name=value (not shown: it may hold a secret)");
            }

            string name = setting[..equals];
            if (Secrets.IsSecretProperty(name))
            {
                warn($"-X {name}=... puts a secret on the command line, where ps and the shell's history show it: give it in a --kafka-config file");
            }

            config.Set(name, setting[(equals + 1)..]);
        }
    }
}
