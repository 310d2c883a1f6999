using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Xml;
using System.Xml.Linq;

namespace KafkaProtobuf.Tool.Schemas;

/// <summary>
/// Accepted breaks, committed as package validation commits <c>CompatibilitySuppressions.xml</c>: each a diagnostic id,
/// a subject and a difference path; a finding that matches one is reported as suppressed, not as an error.
/// </summary>
internal sealed class SchemaSuppressions
{
    private readonly HashSet<string> _keys;

    private SchemaSuppressions(HashSet<string> keys) => _keys = keys;

    public static SchemaSuppressions None { get; } = new([]);

    /// <summary>The suppressions of a file; none when it does not exist.</summary>
    /// <exception cref="InvalidDataException">The file is not a suppressions file.</exception>
    public static SchemaSuppressions Read(string path)
    {
        if (!File.Exists(path))
        {
            return None;
        }

        try
        {
            // The file may come with a pull request: no DTD (no entity expansion), nothing resolved from elsewhere.
            using XmlReader reader = XmlReader.Create(path, new XmlReaderSettings { DtdProcessing = DtdProcessing.Prohibit, XmlResolver = null });
            XDocument document = XDocument.Load(reader);
            var keys = new HashSet<string>(StringComparer.Ordinal);
            foreach (XElement suppression in document.Root?.Elements("Suppression") ?? [])
            {
                keys.Add(Key(Required(suppression, "DiagnosticId"), Required(suppression, "Subject"), Required(suppression, "Path")));
            }

            return new SchemaSuppressions(keys);
        }
        catch (XmlException e)
        {
            throw new InvalidDataException(path + " is not a suppressions file: " + e.Message, e);
        }
    }

    /// <summary>Writes a file that suppresses exactly these findings (those with a path: a file that is gone has none).</summary>
    /// <returns>How many suppressions it holds.</returns>
    public static int Write(string path, IEnumerable<BaselineFinding> findings)
    {
        var root = new XElement("Suppressions");
        foreach (BaselineFinding finding in findings.Where(f => f.Path is not null).DistinctBy(f => Key(f.Code, f.Subject, f.Path!)))
        {
            root.Add(new XElement(
                "Suppression",
                new XElement("DiagnosticId", finding.Code),
                new XElement("Subject", finding.Subject),
                new XElement("Path", finding.Path)));
        }

        new XDocument(new XDeclaration("1.0", "utf-8", null), root).Save(path);
        return root.Elements().Count();
    }

    public bool Suppresses(string code, string subject, string path) => _keys.Contains(Key(code, subject, path));

    private static string Key(string code, string subject, string path) => code + "\n" + subject + "\n" + path;

    private static string Required(XElement suppression, string name) =>
        suppression.Element(name)?.Value ?? throw new XmlException("a Suppression has no " + name);
}
