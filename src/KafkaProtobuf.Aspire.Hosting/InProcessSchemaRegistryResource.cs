using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Aspire.Hosting.ApplicationModel;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;

namespace KafkaProtobuf.Aspire.Hosting;

/// <summary>
/// A Confluent Schema Registry resource served by <see cref="InProcessSchemaRegistry"/> inside the AppHost's process,
/// over HTTP on a loopback port the operating system chooses. It checks compatibility as Confluent's registry does
/// (an incompatible schema is refused with 409). Its connection string is its URL. Its data lives as long as the AppHost.
/// </summary>
public sealed class InProcessSchemaRegistryResource : Resource, IResourceWithConnectionString
{
    private readonly StartedValue _url;
    private readonly List<SchemaSubject> _subjects = [];

    internal InProcessSchemaRegistryResource(string name)
        : base(name) => _url = new StartedValue(name, "url");

    /// <summary>The running registry; null until the resource has started.</summary>
    public InProcessSchemaRegistry? Registry { get; private set; }

    /// <summary>The registry's URL, once started.</summary>
    public ReferenceExpression ConnectionStringExpression => ReferenceExpression.Create($"{_url}");

    /// <summary>The subjects registered at start, each with its .proto text, in the order given.</summary>
    public IReadOnlyList<SchemaSubject> Subjects => _subjects.AsReadOnly();

    internal void AddSubject(string subject, string protoText) => _subjects.Add(new SchemaSubject(subject, protoText));

    internal async Task<InProcessSchemaRegistry> StartAsync(CancellationToken cancellationToken)
    {
        InProcessSchemaRegistry registry = InProcessSchemaRegistry.Start();
        try
        {
            using var client = new RegistryClient(registry.Url);
            foreach (SchemaSubject subject in _subjects)
            {
                await client.RegisterAsync(subject.Name, subject.ProtoText, "PROTOBUF", [], normalize: false, cancellationToken).ConfigureAwait(false);
            }
        }
        catch
        {
            registry.Dispose();
            throw;
        }

        Registry = registry;
        _url.Set(registry.Url);
        return registry;
    }

    internal void Stop()
    {
        InProcessSchemaRegistry? registry = Registry;
        Registry = null;
        registry?.Dispose();
    }
}
