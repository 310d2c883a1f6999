using System;
using System.Runtime.CompilerServices;
using System.Threading;
using KafkaProtobuf.Wolverine.Decoding;
using KafkaProtobuf.Wolverine.Writing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Wolverine.Kafka;
using Wolverine.Runtime;

namespace KafkaProtobuf.Wolverine.Transport;

/// <summary>
/// What one Wolverine Kafka endpoint (a topic, which Wolverine keeps as one object whether it is listened to, published
/// to, or both) reads and writes with: the reader from <c>ReadProtobuf</c>, the writer from <c>WriteProtobuf</c>, and the
/// one serializer and mapper both calls give the endpoint.
/// </summary>
internal sealed class ProtobufTopic
{
    private static readonly ConditionalWeakTable<KafkaTopic, ProtobufTopic> ByEndpoint = new();

    private ProtobufEnvelopeMapper? _mapper;

    private ProtobufTopic(KafkaTopic endpoint)
    {
        Endpoint = endpoint;
        Serializer = new ProtobufMessageSerializer(this);
    }

    public KafkaTopic Endpoint { get; }

    /// <summary>The topic's name (Wolverine's <c>wolverine.topics</c> for a route whose topic each message chooses).</summary>
    public string TopicName => Endpoint.TopicName;

    public ProtobufReader? Reader { get; set; }

    public ProtobufWriter? Writer { get; set; }

    public ProtobufMessageSerializer Serializer { get; }

    /// <summary>Cancelled when the application stops: a listener waiting out a schema outage gives up then.</summary>
    public CancellationToken Stopping { get; private set; }

    public static ProtobufTopic Of(KafkaTopic endpoint) => ByEndpoint.GetValue(endpoint, static e => new ProtobufTopic(e));

    /// <summary>The endpoint's mapper, made once when Wolverine builds the endpoint.</summary>
    public ProtobufEnvelopeMapper MapperFor(IWolverineRuntime runtime)
    {
        Stopping = runtime.Cancellation;
        if (Reader is { } reader && runtime.Services.GetService<ILoggerFactory>() is { } logs)
        {
            reader.Log = logs.CreateLogger("KafkaProtobuf.Wolverine");
        }

        return _mapper ??= new ProtobufEnvelopeMapper(this);
    }

    /// <summary>The topic a message is written to: the one its envelope names (a route that chooses it per message), else the route's.</summary>
    public string TopicFor(global::Wolverine.Envelope envelope)
    {
        string topic = envelope.TopicName ?? TopicName;
        if (string.Equals(topic, KafkaTopic.WolverineTopicsName, StringComparison.Ordinal))
        {
            throw new InvalidOperationException(
                "The message's topic is not known yet (a route that names its topic per message gave none): the registry subject would be wrong. Route it with ToKafkaTopic(name).");
        }

        return topic;
    }
}
