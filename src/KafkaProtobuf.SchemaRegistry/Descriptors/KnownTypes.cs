using System;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>The imports Confluent's serializers leave out of a schema's references (the files themselves come from <c>WellKnownFiles</c>).</summary>
internal static class KnownTypes
{
    /// <summary>
    /// The imports Confluent's serializers leave out of a schema's references when <c>skip.known.types</c> is on
    /// (the default): Google's and Confluent's own.
    /// </summary>
    internal static bool IsSkippedByDefault(string importPath) =>
        importPath.StartsWith("google/protobuf/", StringComparison.Ordinal)
        || importPath.StartsWith("google/type/", StringComparison.Ordinal)
        || importPath.StartsWith("confluent/", StringComparison.Ordinal);
}
