using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>How the client writes REST paths (escaped subjects, invariant numbers) and reads references back.</summary>
internal static class RegistryPaths
{
    internal static string Segment(string value) => Uri.EscapeDataString(value);

    internal static string Number(int value) => value.ToString(CultureInfo.InvariantCulture);

    internal static string Flag(bool value) => value ? "true" : "false";

    /// <summary>
    /// The references of a registry's answer, as it gave them: an entry that is null is none, a name or subject that is
    /// null an empty one (an import it leaves unresolved makes the schema unusable when the file is built, not here).
    /// </summary>
    internal static IReadOnlyList<RegistryReference> References(List<ReferenceJson?>? references) =>
        references is null
            ? Array.Empty<RegistryReference>()
            : references.OfType<ReferenceJson>().Select(r => new RegistryReference(r.Name ?? string.Empty, r.Subject ?? string.Empty, r.Version)).ToArray();
}
