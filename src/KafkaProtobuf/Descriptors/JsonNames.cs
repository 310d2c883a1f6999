using System.Text;

namespace KafkaProtobuf.Descriptors;

/// <summary>
/// A field's default JSON name as protoc derives it: lowerCamelCase of the proto name, each underscore dropped and the
/// letter after it upper-cased. Self-contained, so the packages that cannot see the core's internals share it as
/// source.
/// </summary>
internal static class JsonNames
{
    internal static string FromFieldName(string fieldName)
    {
        var name = new StringBuilder(fieldName.Length);
        bool upper = false;
        foreach (char c in fieldName)
        {
            if (c == '_')
            {
                upper = true;
            }
            else
            {
                name.Append(upper ? char.ToUpperInvariant(c) : c);
                upper = false;
            }
        }

        return name.ToString();
    }
}
