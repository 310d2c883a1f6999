using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Text;

namespace KafkaProtobuf.Tests.Shared;

/// <summary>
/// Every option's default, as text: one line per public property of each options type (<c>Type.Property = value</c>),
/// options objects they hold walked into, collections and Kafka configs listed, a value that differs between two new
/// instances (a new run id) said to. Compared with a file kept beside the test: a changed default is a breaking change
/// (docs/versioning.md), so it shows up as a failing test and a diff, never by accident.
/// </summary>
internal static class OptionDefaults
{
    public static string Describe(IEnumerable<Type> types)
    {
        var lines = new List<string>();
        foreach (Type type in types.OrderBy(t => t.FullName, StringComparer.Ordinal))
        {
            object first = Activator.CreateInstance(type)!, second = Activator.CreateInstance(type)!;
            Walk(type.Name, type, first, second, lines, depth: 0);
        }

        return string.Join("\n", lines) + "\n";
    }

    /// <summary>The public types of <paramref name="assembly"/> named <c>…Options</c> or <c>…Settings</c> that can be made with <c>new()</c>.</summary>
    public static IEnumerable<Type> OptionTypes(Assembly assembly) =>
        assembly.GetExportedTypes().Where(t => t.IsClass && !t.IsAbstract && (t.Name.EndsWith("Options", StringComparison.Ordinal) || t.Name.EndsWith("Settings", StringComparison.Ordinal))
            && t.GetConstructor(Type.EmptyTypes) is not null);

    /// <summary>Fails with the difference when <paramref name="actual"/> is not the file's text; <c>KAFKAPROTOBUF_WRITE_DEFAULTS=1</c> writes the file instead.</summary>
    public static void AssertMatches(string file, string actual)
    {
        if (Environment.GetEnvironmentVariable("KAFKAPROTOBUF_WRITE_DEFAULTS") == "1")
        {
            File.WriteAllText(file, actual);
        }

        string expected = File.Exists(file) ? File.ReadAllText(file).Replace("\r\n", "\n", StringComparison.Ordinal) : string.Empty;
        if (expected != actual)
        {
            string[] was = expected.Split('\n'), now = actual.Split('\n');
            string diff = string.Join("\n", was.Except(now).Select(l => "- " + l).Concat(now.Except(was).Select(l => "+ " + l)));
            throw new Xunit.Sdk.XunitException(
                "Options' defaults differ from " + Path.GetFileName(file) + " (a changed default is a breaking change, docs/versioning.md; a new option's default is added to the file):\n" + diff);
        }
    }

    /// <summary>A file of the repository, found from the test's output folder upwards (where KafkaProtobuf.sln is).</summary>
    public static string RepositoryFile(string relative)
    {
        for (DirectoryInfo? directory = new(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "KafkaProtobuf.sln")))
            {
                return Path.Combine(directory.FullName, relative);
            }
        }

        throw new InvalidOperationException("KafkaProtobuf.sln not found above " + AppContext.BaseDirectory);
    }

    private static void Walk(string prefix, Type type, object first, object second, List<string> lines, int depth)
    {
        foreach (PropertyInfo property in type.GetProperties(BindingFlags.Public | BindingFlags.Instance).Where(p => p.GetIndexParameters().Length == 0).OrderBy(p => p.Name, StringComparer.Ordinal))
        {
            object? a = property.GetValue(first), b = property.GetValue(second);
            string name = prefix + "." + property.Name;
            if (a is not null && depth < 3 && IsOurs(a.GetType()) && !a.GetType().IsEnum)
            {
                Walk(name, a.GetType(), a, b!, lines, depth + 1);
                continue;
            }

            string shown = Text(a), other = Text(b);
            lines.Add(name + " = " + (shown == other ? shown : "(differs per instance)"));
        }
    }

    private static bool IsOurs(Type type) => type.Namespace?.StartsWith("KafkaProtobuf", StringComparison.Ordinal) == true && type.IsClass;

    private static string Text(object? value) => value switch
    {
        null => "null",
        string s => "\"" + s + "\"",
        Delegate => "(a function)",
        IEnumerable<KeyValuePair<string, string>> config => "{" + string.Join(", ", config.OrderBy(p => p.Key, StringComparer.Ordinal).Select(p => p.Key + "=" + p.Value)) + "}",
        IDictionary dictionary => "{" + dictionary.Count.ToString(CultureInfo.InvariantCulture) + " entries}",
        IEnumerable items => "[" + string.Join(", ", items.Cast<object?>().Select(Text)) + "]",
        IFormattable formattable => formattable.ToString(null, CultureInfo.InvariantCulture),
        _ => value.ToString() ?? string.Empty,
    };
}
