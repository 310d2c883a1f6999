namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// A kind of difference between two Protobuf schemas, as Confluent Schema Registry names and judges them (its names in
/// <see cref="SchemaDifference.Code"/>). Whether a kind is compatible is fixed: <see cref="SchemaDifference.IsCompatible"/>.
/// </summary>
public enum SchemaDifferenceKind
{
    /// <summary><c>PACKAGE_CHANGED</c> (incompatible): the file's package changed, so every type's full name did.</summary>
    PackageChanged,

    /// <summary><c>MESSAGE_ADDED</c> (compatible).</summary>
    MessageAdded,

    /// <summary><c>MESSAGE_REMOVED</c> (incompatible): records naming it by its index cannot be read.</summary>
    MessageRemoved,

    /// <summary><c>MESSAGE_MOVED</c> (compatible): its place among its siblings changed; records carry indexes of their writer's schema.</summary>
    MessageMoved,

    /// <summary><c>ENUM_ADDED</c> (compatible).</summary>
    EnumAdded,

    /// <summary><c>ENUM_REMOVED</c> (compatible).</summary>
    EnumRemoved,

    /// <summary><c>ENUM_CONST_ADDED</c> (compatible).</summary>
    EnumConstAdded,

    /// <summary><c>ENUM_CONST_CHANGED</c> (compatible): a number kept its place under another name.</summary>
    EnumConstChanged,

    /// <summary><c>ENUM_CONST_REMOVED</c> (compatible): readers keep the number as an unknown value.</summary>
    EnumConstRemoved,

    /// <summary><c>FIELD_ADDED</c> (compatible).</summary>
    FieldAdded,

    /// <summary><c>FIELD_REMOVED</c> (compatible): readers skip it as an unknown field.</summary>
    FieldRemoved,

    /// <summary><c>FIELD_NAME_CHANGED</c> (compatible on the wire, which carries numbers; JSON and code see the new name).</summary>
    FieldNameChanged,

    /// <summary><c>FIELD_KIND_CHANGED</c> (incompatible): a scalar became a message or map, or the other way round.</summary>
    FieldKindChanged,

    /// <summary><c>FIELD_SCALAR_KIND_CHANGED</c> (incompatible): a scalar moved to a group whose wire encoding differs.</summary>
    FieldScalarKindChanged,

    /// <summary><c>FIELD_NAMED_TYPE_CHANGED</c> (incompatible): a message field names another type, or its type changed incompatibly.</summary>
    FieldNamedTypeChanged,

    /// <summary><c>FIELD_NUMERIC_LABEL_CHANGED</c> (incompatible): a numeric field became repeated or stopped being so (packed values misread).</summary>
    FieldNumericLabelChanged,

    /// <summary><c>FIELD_STRING_OR_BYTES_LABEL_CHANGED</c> (compatible): a string or bytes field's label changed; each value is still one length-delimited record.</summary>
    FieldStringOrBytesLabelChanged,

    /// <summary><c>REQUIRED_FIELD_ADDED</c> (incompatible): records written without it fail to parse.</summary>
    RequiredFieldAdded,

    /// <summary><c>REQUIRED_FIELD_REMOVED</c> (incompatible): readers that still require it fail.</summary>
    RequiredFieldRemoved,

    /// <summary><c>ONEOF_ADDED</c> (compatible).</summary>
    OneofAdded,

    /// <summary><c>ONEOF_REMOVED</c> (compatible).</summary>
    OneofRemoved,

    /// <summary><c>ONEOF_FIELD_ADDED</c> (compatible).</summary>
    OneofFieldAdded,

    /// <summary><c>ONEOF_FIELD_REMOVED</c> (incompatible): a record holding it reads as holding none of the oneof.</summary>
    OneofFieldRemoved,

    /// <summary><c>ONEOF_FIELD_MOVED_TO_TOP_LEVEL</c> (compatible): a oneof's field became an ordinary one, which only relaxes exclusivity.</summary>
    OneofFieldMovedToTopLevel,

    /// <summary><c>MULTIPLE_FIELDS_MOVED_TO_ONEOF</c> (incompatible): fields set together before are now exclusive; all but the last are lost.</summary>
    MultipleFieldsMovedToOneof,

    /// <summary><c>FIELD_MOVED_TO_EXISTING_ONEOF</c> (incompatible): a field joined a oneof whose fields it was set beside before.</summary>
    FieldMovedToExistingOneof,
}
