using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Descriptors;

namespace KafkaProtobuf.Testing;

/// <summary>
/// Prints a <see cref="FileDescriptorProto"/> as .proto source, as Schema Registry answers Protobuf schemas when no
/// <c>format=serialized</c> is asked (what Confluent's own .NET deserializer asks for, and parses with protobuf-net).
/// protoc compiles the text back to the same descriptor: syntax, package, imports, the options clients act on,
/// messages with nested types, fields (labels, proto3 <c>optional</c>, maps, oneofs, groups, defaults, <c>packed</c>,
/// non-default <c>json_name</c>), enums, reserved ranges and names, extension ranges, extensions and services. Custom
/// options (extensions of the descriptor options) are not printed, nor the field options only descriptor.proto itself
/// uses (retention, targets, edition defaults, feature support).
/// </summary>
public static class ProtoText
{
    /// <summary>Prints the file.</summary>
    /// <param name="file">The descriptor.</param>
    /// <returns>The .proto text.</returns>
    public static string Print(FileDescriptorProto file)
    {
        if (file is null)
        {
            throw new ArgumentNullException(nameof(file));
        }

        var printer = new Printer(file);
        printer.PrintFile();
        return printer.ToString();
    }

    private sealed class Printer
    {
        private readonly FileDescriptorProto _file;
        private readonly StringBuilder _text = new();
        private readonly bool _proto3;
        private int _indent;

        internal Printer(FileDescriptorProto file)
        {
            _file = file;
            _proto3 = file.Syntax == "proto3";
        }

        public override string ToString() => _text.ToString();

        internal void PrintFile()
        {
            Line("syntax = \"" + (string.IsNullOrEmpty(_file.Syntax) ? "proto2" : _file.Syntax) + "\";");
            if (_file.HasPackage)
            {
                Line("package " + _file.Package + ";");
            }

            if (_file.Dependency.Count > 0)
            {
                Line();
                for (int i = 0; i < _file.Dependency.Count; i++)
                {
                    string kind = _file.PublicDependency.Contains(i) ? "public " : _file.WeakDependency.Contains(i) ? "weak " : string.Empty;
                    Line("import " + kind + Quote(_file.Dependency[i]) + ";");
                }
            }

            FileOptions? o = _file.Options;
            if (o is not null)
            {
                var options = new List<string>();
                AddString(options, o.HasJavaPackage, "java_package", o.JavaPackage);
                AddString(options, o.HasJavaOuterClassname, "java_outer_classname", o.JavaOuterClassname);
                AddBool(options, o.HasJavaMultipleFiles, "java_multiple_files", o.JavaMultipleFiles);
                AddBool(options, o.HasJavaStringCheckUtf8, "java_string_check_utf8", o.JavaStringCheckUtf8);
                if (o.HasOptimizeFor)
                {
                    options.Add("optimize_for = " + (o.OptimizeFor switch
                    {
                        FileOptions.Types.OptimizeMode.CodeSize => "CODE_SIZE",
                        FileOptions.Types.OptimizeMode.LiteRuntime => "LITE_RUNTIME",
                        _ => "SPEED",
                    }));
                }

                AddString(options, o.HasGoPackage, "go_package", o.GoPackage);
                AddBool(options, o.HasDeprecated, "deprecated", o.Deprecated);
                AddBool(options, o.HasCcEnableArenas, "cc_enable_arenas", o.CcEnableArenas);
                AddString(options, o.HasObjcClassPrefix, "objc_class_prefix", o.ObjcClassPrefix);
                AddString(options, o.HasCsharpNamespace, "csharp_namespace", o.CsharpNamespace);
                AddString(options, o.HasSwiftPrefix, "swift_prefix", o.SwiftPrefix);
                AddString(options, o.HasPhpClassPrefix, "php_class_prefix", o.PhpClassPrefix);
                AddString(options, o.HasPhpNamespace, "php_namespace", o.PhpNamespace);
                AddString(options, o.HasPhpMetadataNamespace, "php_metadata_namespace", o.PhpMetadataNamespace);
                AddString(options, o.HasRubyPackage, "ruby_package", o.RubyPackage);
                if (options.Count > 0)
                {
                    Line();
                    options.ForEach(option => Line("option " + option + ";"));
                }
            }

            foreach (DescriptorProto message in _file.MessageType)
            {
                Line();
                PrintMessage(message);
            }

            foreach (EnumDescriptorProto type in _file.EnumType)
            {
                Line();
                PrintEnum(type);
            }

            PrintExtensions(_file.Extension);

            foreach (ServiceDescriptorProto service in _file.Service)
            {
                Line();
                Line("service " + service.Name + " {");
                _indent++;
                foreach (MethodDescriptorProto method in service.Method)
                {
                    string input = (method.ClientStreaming ? "stream " : string.Empty) + method.InputType;
                    string output = (method.ServerStreaming ? "stream " : string.Empty) + method.OutputType;
                    Line("rpc " + method.Name + " (" + input + ") returns (" + output + ")" + (method.Options?.Deprecated == true ? " { option deprecated = true; }" : ";"));
                }

                _indent--;
                Line("}");
            }
        }

        private void PrintMessage(DescriptorProto message, FieldDescriptorProto? asGroup = null)
        {
            if (asGroup is null)
            {
                Line("message " + message.Name + " {");
            }

            _indent++;
            if (message.Options?.Deprecated == true)
            {
                Line("option deprecated = true;");
            }

            if (message.Options is { HasMessageSetWireFormat: true, MessageSetWireFormat: true })
            {
                Line("option message_set_wire_format = true;");
            }

            PrintReserved(message.ReservedRange.Select(r => (r.Start, r.End)), message.ReservedName, exclusiveEnd: true);
            if (message.ExtensionRange.Count > 0)
            {
                Line("extensions " + string.Join(", ", message.ExtensionRange.Select(r => Range(r.Start, r.End, exclusiveEnd: true))) + ";");
            }

            // Map entries and group types are printed where their field is.
            var inline = new HashSet<string>(StringComparer.Ordinal);
            for (int i = 0; i < message.Field.Count; i++)
            {
                FieldDescriptorProto field = message.Field[i];
                if (field.HasOneofIndex && !field.Proto3Optional)
                {
                    int oneof = field.OneofIndex;
                    Line("oneof " + message.OneofDecl[oneof].Name + " {");
                    _indent++;
                    for (; i < message.Field.Count && message.Field[i].HasOneofIndex && message.Field[i].OneofIndex == oneof; i++)
                    {
                        PrintField(message, message.Field[i], inOneof: true, inline);
                    }

                    i--;
                    _indent--;
                    Line("}");
                    continue;
                }

                PrintField(message, field, inOneof: false, inline);
            }

            foreach (DescriptorProto nested in message.NestedType.Where(n => !inline.Contains(n.Name)))
            {
                PrintMessage(nested);
            }

            foreach (EnumDescriptorProto type in message.EnumType)
            {
                PrintEnum(type);
            }

            PrintExtensions(message.Extension);
            _indent--;
            Line("}");
        }

        private void PrintField(DescriptorProto owner, FieldDescriptorProto field, bool inOneof, HashSet<string> inline)
        {
            DescriptorProto? entry = field.Type == FieldDescriptorProto.Types.Type.Message ? NestedOf(owner, field.TypeName) : null;
            string name = field.Name + " = " + field.Number.ToString(CultureInfo.InvariantCulture);
            string options = FieldOptions(field);
            if (entry is { Options.MapEntry: true })
            {
                inline.Add(entry.Name);
                Line("map<" + TypeOf(entry.Field[0]) + ", " + TypeOf(entry.Field[1]) + "> " + name + options + ";");
                return;
            }

            string label = inOneof ? string.Empty : Label(field);
            if (field.Type == FieldDescriptorProto.Types.Type.Group)
            {
                DescriptorProto group = NestedOf(owner, field.TypeName)!;
                inline.Add(group.Name);
                Line(label + "group " + group.Name + " = " + field.Number.ToString(CultureInfo.InvariantCulture) + options + " {");
                PrintMessage(group, field);
                return;
            }

            Line(label + TypeOf(field) + " " + name + options + ";");
        }

        private void PrintExtensions(IList<FieldDescriptorProto> extensions)
        {
            foreach (IGrouping<string, FieldDescriptorProto> extendee in extensions.GroupBy(e => e.Extendee))
            {
                Line("extend " + extendee.Key + " {");
                _indent++;
                foreach (FieldDescriptorProto field in extendee)
                {
                    Line(Label(field) + TypeOf(field) + " " + field.Name + " = " + field.Number.ToString(CultureInfo.InvariantCulture) + FieldOptions(field) + ";");
                }

                _indent--;
                Line("}");
            }
        }

        private void PrintEnum(EnumDescriptorProto type)
        {
            Line("enum " + type.Name + " {");
            _indent++;
            if (type.Options?.AllowAlias == true)
            {
                Line("option allow_alias = true;");
            }

            if (type.Options?.Deprecated == true)
            {
                Line("option deprecated = true;");
            }

            foreach (EnumValueDescriptorProto value in type.Value)
            {
                Line(value.Name + " = " + value.Number.ToString(CultureInfo.InvariantCulture) + (value.Options?.Deprecated == true ? " [deprecated = true]" : string.Empty) + ";");
            }

            PrintReserved(type.ReservedRange.Select(r => (r.Start, r.End)), type.ReservedName, exclusiveEnd: false);
            _indent--;
            Line("}");
        }

        private void PrintReserved(IEnumerable<(int Start, int End)> ranges, Google.Protobuf.Collections.RepeatedField<string> names, bool exclusiveEnd)
        {
            string numbers = string.Join(", ", ranges.Select(r => Range(r.Start, r.End, exclusiveEnd)));
            if (numbers.Length > 0)
            {
                Line("reserved " + numbers + ";");
            }

            if (names.Count > 0)
            {
                Line("reserved " + string.Join(", ", names.Select(Quote)) + ";");
            }
        }

        private string Label(FieldDescriptorProto field) => field.Label switch
        {
            FieldDescriptorProto.Types.Label.Repeated => "repeated ",
            FieldDescriptorProto.Types.Label.Required => "required ",
            _ => _proto3 ? (field.Proto3Optional ? "optional " : string.Empty) : _file.Syntax == "editions" ? string.Empty : "optional ",
        };

        private static string FieldOptions(FieldDescriptorProto field)
        {
            var options = new List<string>();
            if (field.HasDefaultValue)
            {
                options.Add("default = " + field.Type switch
                {
                    FieldDescriptorProto.Types.Type.String => Quote(field.DefaultValue),
                    FieldDescriptorProto.Types.Type.Bytes => "\"" + field.DefaultValue + "\"", // already C-escaped in the descriptor
                    _ => field.DefaultValue,
                });
            }

            if (field.Options is { HasPacked: true } packed)
            {
                options.Add("packed = " + (packed.Packed ? "true" : "false"));
            }

            if (field.Options is { HasDeprecated: true, Deprecated: true })
            {
                options.Add("deprecated = true");
            }

            if (field.Options is { HasLazy: true, Lazy: true })
            {
                options.Add("lazy = true");
            }

            if (field.HasJsonName && field.JsonName != JsonNames.FromFieldName(field.Name))
            {
                options.Add("json_name = " + Quote(field.JsonName));
            }

            return options.Count == 0 ? string.Empty : " [" + string.Join(", ", options) + "]";
        }

        private static string TypeOf(FieldDescriptorProto field) => field.Type switch
        {
            FieldDescriptorProto.Types.Type.Message or FieldDescriptorProto.Types.Type.Enum or FieldDescriptorProto.Types.Type.Group => field.TypeName,
            _ => field.Type.ToString().ToLowerInvariant(),
        };

        /// <summary>The nested type a field's fully qualified type name points at, when it is declared in <paramref name="owner"/>.</summary>
        private static DescriptorProto? NestedOf(DescriptorProto owner, string typeName)
        {
            string last = typeName.Substring(typeName.LastIndexOf('.') + 1);
            DescriptorProto? nested = owner.NestedType.FirstOrDefault(n => n.Name == last);
            return nested is not null && typeName.EndsWith("." + owner.Name + "." + last, StringComparison.Ordinal) ? nested : null;
        }

        private static string Range(int start, int end, bool exclusiveEnd)
        {
            int last = exclusiveEnd ? end - 1 : end;
            return last == start ? start.ToString(CultureInfo.InvariantCulture)
                : last == (exclusiveEnd ? 536_870_911 : int.MaxValue) ? start.ToString(CultureInfo.InvariantCulture) + " to max"
                : start.ToString(CultureInfo.InvariantCulture) + " to " + last.ToString(CultureInfo.InvariantCulture);
        }

        private static void AddString(List<string> options, bool present, string name, string value)
        {
            if (present)
            {
                options.Add(name + " = " + Quote(value));
            }
        }

        private static void AddBool(List<string> options, bool present, string name, bool value)
        {
            if (present)
            {
                options.Add(name + " = " + (value ? "true" : "false"));
            }
        }

        private static string Quote(string value)
        {
            var quoted = new StringBuilder("\"");
            foreach (char c in value)
            {
                quoted.Append(c switch
                {
                    '"' => "\\\"",
                    '\\' => "\\\\",
                    '\n' => "\\n",
                    '\r' => "\\r",
                    '\t' => "\\t",
                    < ' ' => "\\" + Convert.ToString(c, 8).PadLeft(3, '0'),
                    _ => c.ToString(),
                });
            }

            return quoted.Append('"').ToString();
        }

        private void Line(string text = "")
        {
            if (text.Length > 0)
            {
                _text.Append(' ', 2 * _indent);
            }

            _text.Append(text).Append('\n');
        }
    }
}
