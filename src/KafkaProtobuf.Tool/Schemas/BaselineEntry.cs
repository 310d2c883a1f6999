using System.Collections.Generic;
using Google.Protobuf.Reflection;
using KafkaProtobuf.SchemaRegistry;

namespace KafkaProtobuf.Tool.Schemas;

/// <summary>
/// One subject of a committed baseline: the file registered under it (its import path), the level a change is checked
/// at, and the versions accepted so far, oldest first, each a descriptor set of everything the file imports and, last,
/// the file itself (under the name it had then).
/// </summary>
internal sealed class BaselineEntry(string subject, string file, CompatibilityLevel level, List<FileDescriptorSet> versions)
{
    public string Subject { get; } = subject;

    public string File { get; } = file;

    public CompatibilityLevel Level { get; set; } = level;

    public List<FileDescriptorSet> Versions { get; } = versions;
}
