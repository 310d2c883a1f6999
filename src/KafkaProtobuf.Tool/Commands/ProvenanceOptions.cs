using System;
using System.CommandLine;
using System.IO;
using KafkaProtobuf.DeadLetters;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>
/// The keys dead letters are verified with and a redrive signs with (<see cref="ProvenanceKeys"/>): from a file or the
/// environment, never an argument (ps and the shell's history show arguments).
/// </summary>
internal sealed class ProvenanceOptions
{
    /// <summary>The keys, when no file is given: base64, separated by commas or white space, the signing key first.</summary>
    public const string KeysVariable = "KAFKA_PROTOBUF_PROVENANCE_KEYS";

    public Option<FileInfo?> KeysFile { get; } = new("--provenance-keys-file")
    {
        Description = "A file of the keys dead letters' blocks are verified with (and a redrive's signed with): base64 keys, one a line, the signing key first, # for comments. Default: " + KeysVariable + "; neither: read unchecked.",
        HelpName = "file",
    };

    public Option<bool> RequireSignatures { get; } = new("--require-signatures")
    {
        Description = "Believe no dead letter without a signed block (written before the keys, or by a writer without them): needs keys.",
    };

    public void AddTo(Command command)
    {
        command.Add(KeysFile);
        command.Add(RequireSignatures);
    }

    /// <summary>The keys from the file, else the environment, else none.</summary>
    /// <exception cref="ArgumentException">The file cannot be read, a key is not one (never quoted), or signatures are required without keys.</exception>
    public ProvenanceKeys? Keys(ParseResult result)
    {
        bool required = result.GetValue(RequireSignatures);
        FileInfo? file = result.GetValue(KeysFile);
        string? text = Secrets.Read(null, "--provenance-keys", file, KeysVariable, _ => { }); // no argument form: never a warning
        if (text is null)
        {
            return required ? throw new ArgumentException("--require-signatures needs keys: --provenance-keys-file FILE or " + KeysVariable) : null;
        }

        try
        {
            return ProvenanceKeys.Parse(text, required);
        }
        catch (Exception e) when (e is FormatException or ArgumentException)
        {
            throw new ArgumentException((file is null ? KeysVariable : "--provenance-keys-file " + file.FullName) + ": " + e.Message, e);
        }
    }
}
