using System.Collections.Generic;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>One registration of a <see cref="ProtobufSchemaRegistrar"/>'s plan: a file, the subject it goes under and the imports it references.</summary>
public sealed class SchemaRegistrationStep
{
    internal SchemaRegistrationStep(string subject, FileDescriptor file, IReadOnlyList<string> references)
    {
        Subject = subject;
        File = file;
        References = references;
    }

    /// <summary>The subject: an import's path, or the file's own subject for the last step.</summary>
    public string Subject { get; }

    /// <summary>The file registered.</summary>
    public FileDescriptor File { get; }

    /// <summary>The import paths it references, in its import order; each is registered by an earlier step under itself.</summary>
    public IReadOnlyList<string> References { get; }

    /// <summary>Returns e.g. <c>orders-value: shop/v1/orders.proto, references shop/v1/common.proto</c>.</summary>
    /// <returns>A description.</returns>
    public override string ToString() =>
        Subject + ": " + File.Name + (References.Count == 0 ? string.Empty : ", references " + string.Join(", ", References));
}
