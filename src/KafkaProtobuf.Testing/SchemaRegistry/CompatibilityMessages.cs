using System;
using System.Collections.Generic;
using System.Linq;
using KafkaProtobuf.SchemaRegistry;

namespace KafkaProtobuf.Testing.SchemaRegistry;

/// <summary>
/// A registration's compatibility verdict in the real registry's words: for each earlier version, newest first, the
/// incompatible differences as <c>{errorType:"KIND", description:"..."}</c> with the reader and writer schema named
/// ("new", "old"), then <c>{oldSchemaVersion: N}</c> and <c>{oldSchema: '...'}</c>; the first version that fails ends
/// the check; a failure ends with <c>{validateFields: 'false', compatibility: 'LEVEL'}</c>. What a 409 lists and
/// <c>verbose=true</c> answers.
/// </summary>
internal static class CompatibilityMessages
{
    private const int MaxSchemaChars = 10 * 1024;

    /// <summary>No message: compatible. <paramref name="earlier"/> oldest first.</summary>
    internal static List<string> Of(CompatibilityLevel level, string schemaType, ProtoSchema? candidate, IReadOnlyList<(int Version, StoredSchema Schema)> earlier)
    {
        var messages = new List<string>();
        if (level == CompatibilityLevel.None)
        {
            return messages;
        }

        if (earlier.Count > 0 && earlier[earlier.Count - 1].Schema.SchemaType != schemaType)
        {
            messages.Add("Incompatible because of different schema type");
        }
        else if (candidate is not null && earlier.All(e => e.Schema.Compared is not null))
        {
            // Avro and JSON Schema are not compared here. The checker's comparisons come newest version first.
            CompatibilityVerdict verdict = ProtobufCompatibility.Check(candidate, earlier.Select(e => e.Schema.Compared!).ToList(), level);
            foreach (IGrouping<int, SchemaComparison> version in verdict.Comparisons.GroupBy(c => c.EarlierVersion))
            {
                // As the registry words it: the earlier schema reading the new one's records first, then the new
                // reading the earlier's, followed by the earlier version and its text.
                SchemaComparison? forward = version.FirstOrDefault(c => c.Direction == CompatibilityDirection.Forward);
                SchemaComparison? backward = version.FirstOrDefault(c => c.Direction == CompatibilityDirection.Backward);
                List<string> readByOld = forward is null ? [] : Incompatible(forward, reader: "old", writer: "new");
                List<string> readByNew = backward is null ? [] : Incompatible(backward, reader: "new", writer: "old");
                messages.AddRange(readByOld);
                messages.AddRange(readByNew);
                if (readByNew.Count > 0 || (backward is null && readByOld.Count > 0))
                {
                    (int number, StoredSchema schema) = earlier[version.Key];
                    AppendEarlier(messages, number, schema);
                }

                if (messages.Count > 0)
                {
                    break; // the first version that fails ends the check
                }
            }
        }

        if (messages.Count > 0)
        {
            messages.Add("{validateFields: 'false', compatibility: '" + CompatibilityLevelNames.Of(level) + "'}");
        }

        return messages;
    }

    private static List<string> Incompatible(SchemaComparison comparison, string reader, string writer) =>
        comparison.Differences
            .Where(d => !d.IsCompatible)
            .Select(d => "{errorType:\"" + d.Code + "\", description:\"" + Describe(d.Kind, d.Path, reader, writer) + "\"}")
            .ToList();

    private static void AppendEarlier(List<string> messages, int version, StoredSchema previous)
    {
        messages.Add("{oldSchemaVersion: " + version + "}");
        messages.Add(previous.Text.Length <= MaxSchemaChars
            ? "{oldSchema: '" + previous.Text + "'}"
            : string.Concat("{oldSchema: <truncated> '", previous.Text.AsSpan(0, MaxSchemaChars), "...'}"));
    }

    /// <summary>The registry's sentence for an incompatible kind (its own wording, double space included).</summary>
    private static string Describe(SchemaDifferenceKind kind, string path, string reader, string writer) => kind switch
    {
        SchemaDifferenceKind.PackageChanged => "The package at '" + path + "' in the " + reader + " schema does not match the package in the " + writer + " schema",
        SchemaDifferenceKind.MessageRemoved => "The " + reader + " schema is missing a MESSAGE type at path '" + path + "' in the " + writer + " schema",
        SchemaDifferenceKind.FieldKindChanged => "The type of a field at path '" + path + "' in the " + reader + " schema does not match the " + writer + " schema",
        SchemaDifferenceKind.FieldScalarKindChanged => "The kind of a SCALAR field at path '" + path + "' in the " + reader + " schema does not match its kind in the " + writer + " schema",
        SchemaDifferenceKind.FieldNamedTypeChanged => "The type of a MESSAGE field at path '" + path + "' in the " + reader + " schema does not match its type in the " + writer + " schema",
        SchemaDifferenceKind.FieldNumericLabelChanged => "The label for a NUMERIC field at path '" + path + "' in the " + reader + " schema does not match its label in the " + writer + " schema",
        SchemaDifferenceKind.RequiredFieldAdded => "A required field  at path '" + path + "' in the " + reader + " schema is missing in the " + writer + " schema",
        SchemaDifferenceKind.RequiredFieldRemoved => "The " + reader + " schema is missing a required field at path: '" + path + "' in the " + writer + " schema",
        SchemaDifferenceKind.OneofFieldRemoved => "The " + reader + " schema is missing a oneof field at path '" + path + "' in the " + writer + " schema",
        SchemaDifferenceKind.MultipleFieldsMovedToOneof => "Multiple fields in the oneof at path '" + path + "' in the " + reader + " schema are outside a oneof in the " + writer + " schema",
        SchemaDifferenceKind.FieldMovedToExistingOneof => "A field in the oneof at path '" + path + "' in the " + reader + " schema is outside an existing oneof in the " + writer + " schema",
        _ => string.Empty,
    };
}
