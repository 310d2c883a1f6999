using System;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>Each kind's registry name, verdict and sentence, in one table.</summary>
internal static class SchemaDifferenceKinds
{
    private static readonly (string Code, bool Compatible, string Sentence)[] Table =
    [
        ("PACKAGE_CHANGED", false, "The package of the new schema does not match the old schema"),
        ("MESSAGE_ADDED", true, "A message at path '{0}' was added to the new schema"),
        ("MESSAGE_REMOVED", false, "The message at path '{0}' in the old schema is missing in the new schema"),
        ("MESSAGE_MOVED", true, "The message at path '{0}' moved among its siblings"),
        ("ENUM_ADDED", true, "An enum at path '{0}' was added to the new schema"),
        ("ENUM_REMOVED", true, "The enum at path '{0}' in the old schema is missing in the new schema"),
        ("ENUM_CONST_ADDED", true, "An enum constant at path '{0}' was added to the new schema"),
        ("ENUM_CONST_CHANGED", true, "The name of the enum constant at path '{0}' changed"),
        ("ENUM_CONST_REMOVED", true, "The enum constant at path '{0}' in the old schema is missing in the new schema"),
        ("FIELD_ADDED", true, "A field at path '{0}' was added to the new schema"),
        ("FIELD_REMOVED", true, "The field at path '{0}' in the old schema is missing in the new schema"),
        ("FIELD_NAME_CHANGED", true, "The name of the field at path '{0}' changed"),
        ("FIELD_KIND_CHANGED", false, "The kind of the field at path '{0}' in the new schema does not match the old schema"),
        ("FIELD_SCALAR_KIND_CHANGED", false, "The scalar type of the field at path '{0}' in the new schema is not wire-compatible with the old schema's"),
        ("FIELD_NAMED_TYPE_CHANGED", false, "The type of the field at path '{0}' in the new schema does not match the old schema"),
        ("FIELD_NUMERIC_LABEL_CHANGED", false, "The label of the numeric field at path '{0}' changed (repeated or not)"),
        ("FIELD_STRING_OR_BYTES_LABEL_CHANGED", true, "The label of the string or bytes field at path '{0}' changed"),
        ("REQUIRED_FIELD_ADDED", false, "A required field at path '{0}' was added to the new schema"),
        ("REQUIRED_FIELD_REMOVED", false, "The required field at path '{0}' in the old schema is missing in the new schema"),
        ("ONEOF_ADDED", true, "A oneof at path '{0}' was added to the new schema"),
        ("ONEOF_REMOVED", true, "The oneof at path '{0}' in the old schema is missing in the new schema"),
        ("ONEOF_FIELD_ADDED", true, "A field at path '{0}' was added to a oneof in the new schema"),
        ("ONEOF_FIELD_REMOVED", false, "The oneof field at path '{0}' in the old schema is missing in the new schema"),
        ("ONEOF_FIELD_MOVED_TO_TOP_LEVEL", true, "The oneof field at path '{0}' became a field outside any oneof"),
        ("MULTIPLE_FIELDS_MOVED_TO_ONEOF", false, "Several fields of the old schema moved into the oneof at path '{0}'"),
        ("FIELD_MOVED_TO_EXISTING_ONEOF", false, "A field of the old schema moved into the oneof at path '{0}', which holds fields it was set beside"),
    ];

    public static string Code(SchemaDifferenceKind kind) => Row(kind).Code;

    public static bool IsCompatible(SchemaDifferenceKind kind) => Row(kind).Compatible;

    public static string Describe(SchemaDifferenceKind kind, string path) => Row(kind).Sentence.Replace("{0}", path) + ".";

    private static (string Code, bool Compatible, string Sentence) Row(SchemaDifferenceKind kind) =>
        (uint)kind < (uint)Table.Length ? Table[(int)kind] : throw new ArgumentOutOfRangeException(nameof(kind), kind, "Not a difference kind.");
}
