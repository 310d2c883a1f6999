using System;
using System.Collections.Generic;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>A registry's verdict on a schema as a subject's next version (<see cref="RegistryClient.TestCompatibilityAsync"/>).</summary>
public sealed class RegistryCompatibilityVerdict
{
    /// <summary>Creates a verdict.</summary>
    /// <param name="isCompatible">Whether the registry would accept the schema.</param>
    /// <param name="messages">What the registry said of it, in its words.</param>
    public RegistryCompatibilityVerdict(bool isCompatible, IReadOnlyList<string> messages)
    {
        IsCompatible = isCompatible;
        Messages = messages ?? throw new ArgumentNullException(nameof(messages));
    }

    /// <summary>Whether the registry would accept the schema.</summary>
    public bool IsCompatible { get; }

    /// <summary>What the registry said of it (its verbose messages; the registry's text, untrusted).</summary>
    public IReadOnlyList<string> Messages { get; }
}
