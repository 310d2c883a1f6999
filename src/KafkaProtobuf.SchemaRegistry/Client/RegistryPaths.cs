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

    internal static IReadOnlyList<RegistryReference> References(List<ReferenceJson>? references) =>
        references is null ? Array.Empty<RegistryReference>() : references.Select(r => new RegistryReference(r.Name, r.Subject, r.Version)).ToArray();
}
