using System;
using System.CommandLine;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using KafkaProtobuf.Decoding;
using KafkaProtobuf.Framing;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Tool.Schemas;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>The options both commands share: where schemas come from, how message indexes are encoded, the output format.</summary>
internal sealed class SchemaOptions
{
    public Option<string?> Registry { get; } = new("--schema-registry", "--registry") { Description = "Schema Registry URL (comma-separated for fail-over); payloads are decoded from the writer's schema.", HelpName = "url" };

    public Option<string?> BasicAuth { get; } = new("--registry-basic-auth") { Description = "Registry credentials, user:password (visible in ps and shell history: prefer --registry-basic-auth-file or " + Secrets.BasicAuthVariable + ").", HelpName = "user:password" };

    public Option<FileInfo?> BasicAuthFile { get; } = new("--registry-basic-auth-file") { Description = "A file holding the registry credentials, user:password (or set " + Secrets.BasicAuthVariable + ").", HelpName = "file" };

    public Option<string?> BearerToken { get; } = new("--registry-bearer-token") { Description = "Registry bearer token (visible in ps and shell history: prefer --registry-bearer-token-file or " + Secrets.BearerTokenVariable + ").", HelpName = "token" };

    public Option<FileInfo?> BearerTokenFile { get; } = new("--registry-bearer-token-file") { Description = "A file holding the registry bearer token (or set " + Secrets.BearerTokenVariable + ").", HelpName = "file" };

    public Option<FileInfo?> DescriptorSet { get; } = new("--descriptor-set") { Description = "Decode with a protoc descriptor set (protoc --include_imports --descriptor_set_out=FILE) instead of a registry.", HelpName = "file.pb" };

    public Option<string?> ProtoFile { get; } = new("--proto-file") { Description = "With --descriptor-set: the file whose message-index paths records use (default: the set's last file).", HelpName = "path.proto" };

    public Option<bool> LegacyIndexes { get; } = new("--legacy-indexes") { Description = "Message indexes as plain unsigned varints (Confluent clients before 5.5)." };

    public Option<bool> NoIndexes { get; } = new("--no-message-indexes") { Description = "Records carry no message-index path (KafkaJS's registry client): the payload follows the schema id and is the schema's first message type." };

    public Option<string> IndexOrder { get; } = CreateIndexOrder();

    public Option<string?> ExpectedType { get; } = new("--type")
    {
        Description = "The message type (full name) records are expected to be (consume: the values; frame: the bytes given); a record whose path names another type is an error, with a hint when the path read in the other order names this one.",
        HelpName = "full.name",
    };

    public Option<string> Format { get; } = CreateFormat();

    private static Option<string> CreateIndexOrder()
    {
        var order = new Option<string>("--message-index-order")
        {
            Description = "The order nested types' paths were written in: root-first (the format), or innermost-first (Confluent's .NET serializer 2.10.1 to 2.11.0).",
            DefaultValueFactory = _ => "root-first",
            HelpName = "root-first|innermost-first",
        };
        order.AcceptOnlyFromAmong("root-first", "innermost-first");
        return order;
    }

    private static Option<string> CreateFormat()
    {
        var format = new Option<string>("--format") { Description = "json: one line per record; pretty: indented.", DefaultValueFactory = _ => "json", HelpName = "json|pretty" };
        format.AcceptOnlyFromAmong("json", "pretty");
        return format;
    }

    public void AddTo(Command command)
    {
        AddRegistryTo(command);
        command.Add(DescriptorSet);
        command.Add(ProtoFile);
        command.Add(LegacyIndexes);
        command.Add(NoIndexes);
        command.Add(IndexOrder);
        command.Add(ExpectedType);
        command.Add(Format);
    }

    /// <summary>The registry URL and its credentials.</summary>
    public void AddRegistryTo(Command command)
    {
        command.Add(Registry);
        command.Add(BasicAuth);
        command.Add(BasicAuthFile);
        command.Add(BearerToken);
        command.Add(BearerTokenFile);
    }

    /// <summary>The framing variant the options name.</summary>
    /// <exception cref="ArgumentException">--no-message-indexes with --legacy-indexes or --message-index-order innermost-first.</exception>
    public FramingOptions Framing(ParseResult result)
    {
        if (result.GetValue(NoIndexes) && (result.GetValue(LegacyIndexes) || result.GetValue(IndexOrder) == "innermost-first"))
        {
            // Said in the options' own words, not FramingOptions' (the user never wrote those).
            throw new ArgumentException((result.GetValue(LegacyIndexes) ? "--legacy-indexes" : "--message-index-order innermost-first")
                + " cannot be used with --no-message-indexes: records without message indexes have no index encoding or order");
        }

        return new FramingOptions
        {
            MessageIndexEncoding = result.GetValue(LegacyIndexes) ? MessageIndexEncoding.LegacyUnsigned : MessageIndexEncoding.ZigZag,
            MessageIndexPresence = result.GetValue(NoIndexes) ? MessageIndexPresence.Absent : MessageIndexPresence.Present,
            MessageIndexOrder = result.GetValue(IndexOrder) == "innermost-first" ? MessageIndexOrder.InnermostFirst : MessageIndexOrder.RootFirst,
        };
    }

    /// <summary>
    /// The library's decoder over the schema source the options name (none: framing only), with the framing they name;
    /// <paramref name="warn"/> says what is unsafe in them (a secret as an argument).
    /// </summary>
    /// <exception cref="ArgumentException">
    /// Both a registry and a descriptor set, a descriptor set or secret file that cannot be read, --type without either, or
    /// --no-message-indexes with --legacy-indexes or --message-index-order innermost-first.
    /// </exception>
    public RecordParts Parts(ParseResult result, Action<string> warn, bool indented)
    {
        FramingOptions framing = Framing(result);
        var options = new WriterSchemaDecoderOptions { SchemaTimeout = System.Threading.Timeout.InfiniteTimeSpan, Indented = indented }; // the registry client has its own timeouts; Ctrl+C stops
        options.Framing.MessageIndexEncoding = framing.MessageIndexEncoding;
        options.Framing.MessageIndexPresence = framing.MessageIndexPresence;
        options.Framing.MessageIndexOrder = framing.MessageIndexOrder;
        string? registry = result.GetValue(Registry);
        FileInfo? set = result.GetValue(DescriptorSet);
        if (registry is not null && set is not null)
        {
            throw new ArgumentException("give --schema-registry or --descriptor-set, not both");
        }

        if (set is not null)
        {
            options.WriterSchemas.Source = DescriptorSetSource(set.FullName, result.GetValue(ProtoFile));
            return new RecordParts(new WriterSchemaDecoder(options), null, framing.MessageIndexOrder);
        }

        if (registry is null)
        {
            if (result.GetValue(ExpectedType) is not null)
            {
                throw new ArgumentException("--type needs --schema-registry or --descriptor-set: a record's path is read in its writer's schema");
            }

            return new RecordParts(new WriterSchemaDecoder(options), null, framing.MessageIndexOrder);
        }

        RegistryClient client = Client(result, warn)!;
        options.WriterSchemas.Source = client;
        return new RecordParts(new WriterSchemaDecoder(options), client, framing.MessageIndexOrder);
    }

    /// <summary>A descriptor set's file as every record's writer's schema: the one named, or else the last (protoc writes the files asked for after their imports).</summary>
    /// <exception cref="ArgumentException">The set cannot be read, or has no file of that name.</exception>
    private static SingleFileSchemaSource DescriptorSetSource(string path, string? fileName)
    {
        try
        {
            IReadOnlyList<Google.Protobuf.Reflection.FileDescriptor> files = DescriptorSetFile.Read(path);
            return new SingleFileSchemaSource(fileName is null
                ? files[files.Count - 1]
                : files.FirstOrDefault(f => f.Name == fileName) ?? throw new InvalidDataException($"{path} has no file '{fileName}'; it has: {string.Join(", ", files.Select(f => f.Name))}"));
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or InvalidDataException or Google.Protobuf.InvalidProtocolBufferException or ArgumentException)
        {
            throw new ArgumentException($"cannot read the descriptor set {path}: {e.Message}", e);
        }
    }

    /// <summary>A client for the registry the options name (with its credentials), or null when none is named.</summary>
    /// <exception cref="ArgumentException">A secret file that cannot be read.</exception>
    public RegistryClient? Client(ParseResult result, Action<string> warn)
    {
        string? registry = result.GetValue(Registry);
        if (registry is null)
        {
            return null;
        }

        var options = new RegistryClientOptions
        {
            BasicAuthUserInfo = Secrets.Read(result.GetValue(BasicAuth), "--registry-basic-auth", result.GetValue(BasicAuthFile), Secrets.BasicAuthVariable, warn),
        };
        foreach (string url in registry.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            options.Urls.Add(url);
        }

        if (Secrets.Read(result.GetValue(BearerToken), "--registry-bearer-token", result.GetValue(BearerTokenFile), Secrets.BearerTokenVariable, warn) is { } token)
        {
            options.BearerToken = _ => Task.FromResult(token);
        }

        return new RegistryClient(options);
    }
}
