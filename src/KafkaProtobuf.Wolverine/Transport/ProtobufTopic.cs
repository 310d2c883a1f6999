using System;
using System.Runtime.CompilerServices;
using System.Threading;
using KafkaProtobuf.Wolverine.Decoding;
using KafkaProtobuf.Wolverine.Writing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Wolverine.Kafka;
using Wolverine.Kafka.Internals;
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

    /// <summary>
    /// Cancelled when the application begins to stop (the host's <c>ApplicationStopping</c>, or Wolverine's own
    /// cancellation): a listener waiting out a schema outage gives up then, and Wolverine's listener can drain.
    /// </summary>
    public CancellationToken Stopping { get; private set; }

    public static ProtobufTopic Of(KafkaTopic endpoint) => ByEndpoint.GetValue(endpoint, static e => new ProtobufTopic(e));

    /// <summary>The endpoint's mapper, made once when Wolverine builds the endpoint.</summary>
    public ProtobufEnvelopeMapper MapperFor(IWolverineRuntime runtime)
    {
        if (_mapper is not null)
        {
            return _mapper; // both calls on one topic register a factory: whichever Wolverine runs, one mapper
        }

        Stopping = runtime.Services.GetService<IHostApplicationLifetime>() is { } lifetime
            ? CancellationTokenSource.CreateLinkedTokenSource(lifetime.ApplicationStopping, runtime.Cancellation).Token
            : runtime.Cancellation;
        if (Reader is { } reader && runtime.Services.GetService<ILoggerFactory>() is { } logs)
        {
            reader.Log = logs.CreateLogger("KafkaProtobuf.Wolverine");
        }

        _mapper = new ProtobufEnvelopeMapper(this);
        if (Reader is not null)
        {
            WriteDeadLettersExactly(runtime);
        }

        return _mapper;
    }

    /// <summary>
    /// Wolverine writes a listener's dead letters with the dead-letter topic's own mapper, not the listener's: give that
    /// topic this package's mapper (unless the application gave it one), which writes a record read here as it was
    /// read, and any other envelope as Wolverine's own mapper does.
    /// </summary>
    private void WriteDeadLettersExactly(IWolverineRuntime runtime)
    {
        KafkaTopic deadLetters = Endpoint.Parent.Topics[Endpoint.Parent.DeadLetterQueueTopicName];
        if (deadLetters != Endpoint && (deadLetters.EnvelopeMapper is null || deadLetters.EnvelopeMapper.GetType() == typeof(KafkaEnvelopeMapper)))
        {
            deadLetters.EnvelopeMapper = Of(deadLetters).MapperFor(runtime);
        }
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
