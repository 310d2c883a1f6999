using System;
using System.Collections.Generic;
using System.CommandLine;
using System.Linq;
using Confluent.Kafka;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>
/// The subject .proto files go under, as the commands that register or record them name it: <c>--subject S</c>, or
/// <c>--topic T [--key]</c> with the serializer's naming (<c>--naming</c>, <c>--type</c>), through <see cref="SubjectNames"/>.
/// </summary>
internal sealed class SubjectOptions
{
    public SubjectOptions()
    {
        Naming.AcceptOnlyFromAmong("topic", "record", "topic-record");
    }

    public Option<string?> Subject { get; } = new("--subject") { Description = "The subject to put the one file under.", HelpName = "subject" };

    public Option<string?> Topic { get; } = new("--topic") { Description = "The topic records of the file's types are written to: the subject is named from it as the serializer names it (--naming).", HelpName = "topic" };

    public Option<bool> Key { get; } = new("--key") { Description = "With --topic: the schema of the records' keys (topic-key), not their values." };

    public Option<string> Naming { get; } = new("--naming")
    {
        Description = "With --topic, the serializer's subject naming: topic ({topic}-value, one file), record ({type}) or topic-record ({topic}-{type}), one subject per message type of each file (or each --type).",
        DefaultValueFactory = _ => "topic",
        HelpName = "topic|record|topic-record",
    };

    public Option<string[]> Types { get; } = new("--type") { Description = "With --naming record or topic-record: the message types written (full names, nested ones too), repeatable. Default: every top-level message of the files.", HelpName = "full.name" };

    public void AddTo(Command command)
    {
        command.Add(Subject);
        command.Add(Topic);
        command.Add(Key);
        command.Add(Naming);
        command.Add(Types);
    }

    /// <summary>What is wrong with the options for this many files, or null.</summary>
    public string? Usage(ParseResult result, int files)
    {
        string? subject = result.GetValue(Subject);
        string naming = result.GetValue(Naming) ?? "topic";
        int types = (result.GetValue(Types) ?? []).Length;
        return (subject is null) == (result.GetValue(Topic) is null) ? "give --subject or --topic"
            : subject is not null && (result.GetValue(Key) || naming != "topic" || types > 0) ? "--key, --naming and --type go with --topic"
            : files > 1 && (subject is not null || naming == "topic") ? "one subject takes one file: give one file, or --naming record or topic-record"
            : types > 0 && naming == "topic" ? "--type goes with --naming record or topic-record"
            : null;
    }

    /// <summary>Each file under its subject: one per file with --subject or topic naming, else one per message type written.</summary>
    /// <exception cref="ArgumentException">A --type that no file declares, or a file with no message.</exception>
    public List<(string Subject, FileDescriptor File)> Targets(ParseResult result, IReadOnlyList<FileDescriptor> files)
    {
        if (result.GetValue(Subject) is { } subject)
        {
            return [(subject, files[0])];
        }

        string topic = result.GetValue(Topic)!;
        MessageComponentType component = result.GetValue(Key) ? MessageComponentType.Key : MessageComponentType.Value;
        SubjectNaming naming = result.GetValue(Naming) switch
        {
            "record" => SubjectNaming.Record,
            "topic-record" => SubjectNaming.TopicRecord,
            _ => SubjectNaming.Topic,
        };
        if (naming == SubjectNaming.Topic)
        {
            return [(SubjectNames.Of(naming, topic, component, string.Empty), files[0])];
        }

        var targets = new List<(string, FileDescriptor)>();
        string[] typeNames = result.GetValue(Types) ?? [];
        foreach (string type in typeNames)
        {
            FileDescriptor file = files.FirstOrDefault(f => Declares(f.MessageTypes, type))
                ?? throw new ArgumentException("no file given declares the message '" + type + "'");
            targets.Add((SubjectNames.Of(naming, topic, component, type), file));
        }

        if (typeNames.Length == 0)
        {
            foreach (FileDescriptor file in files)
            {
                if (file.MessageTypes.Count == 0)
                {
                    throw new ArgumentException(file.Name + " declares no message: a record type's subject needs one");
                }

                targets.AddRange(file.MessageTypes.Select(m => (SubjectNames.Of(naming, topic, component, m.FullName), file)));
            }
        }

        return targets;
    }

    private static bool Declares(IEnumerable<MessageDescriptor> messages, string fullName) =>
        messages.Any(m => m.FullName == fullName || Declares(m.NestedTypes, fullName));
}
