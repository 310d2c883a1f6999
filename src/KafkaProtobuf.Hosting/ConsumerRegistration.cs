using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting;

/// <summary>What one <c>AddKafkaProtobufConsumer</c> call registered, completed by its builder, read when the host starts.</summary>
internal sealed class ConsumerRegistration<TKey, TValue>(string name)
{
    public string Name { get; } = name;

    /// <summary>Applied in order to a new options object when the consumer starts (configuration first, then code).</summary>
    public List<Action<IServiceProvider, KafkaProtobufConsumerOptions>> Configure { get; } = [];

    public Func<IServiceProvider, IDeserializer<TKey>>? KeyDeserializer { get; set; }

    public Func<IServiceProvider, IDeserializer<TValue>>? ValueDeserializer { get; set; }

    /// <summary>The record handler; null when the consumer has a batch handler.</summary>
    public Func<IServiceProvider, ConsumeResult<TKey, TValue>, CancellationToken, Task>? Handler { get; private set; }

    /// <summary>The batch handler; null when the consumer has a record handler.</summary>
    public Func<IServiceProvider, IReadOnlyList<ConsumeResult<TKey, TValue>>, CancellationToken, Task>? BatchHandler { get; private set; }

    /// <summary>Whether the handler gets a service scope of its own for each record or batch.</summary>
    public bool HandlerNeedsScope { get; private set; }

    /// <summary>A consumer has one handler: a record handler replaces a batch handler set before, and the other way round.</summary>
    public void HandleRecords(Func<IServiceProvider, ConsumeResult<TKey, TValue>, CancellationToken, Task> handler, bool needsScope)
    {
        Handler = handler;
        BatchHandler = null;
        HandlerNeedsScope = needsScope;
    }

    /// <inheritdoc cref="HandleRecords"/>
    public void HandleBatches(
        Func<IServiceProvider, IReadOnlyList<ConsumeResult<TKey, TValue>>, CancellationToken, Task> handler, bool needsScope)
    {
        BatchHandler = handler;
        Handler = null;
        HandlerNeedsScope = needsScope;
    }

    public KafkaProtobufConsumerOptions CreateOptions(IServiceProvider services)
    {
        var options = new KafkaProtobufConsumerOptions();
        foreach (Action<IServiceProvider, KafkaProtobufConsumerOptions> configure in Configure)
        {
            configure(services, options);
        }

        options.Validate(Name, batches: BatchHandler is not null);
        if (Handler is null && BatchHandler is null)
        {
            throw new InvalidOperationException("The KafkaProtobuf consumer '" + Name + "' has no handler: call Handle, "
                + "HandleWith, HandleBatch or HandleBatchWith on its builder.");
        }

        return options;
    }
}
