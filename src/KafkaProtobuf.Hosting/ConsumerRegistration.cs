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

    public Func<IServiceProvider, ConsumeResult<TKey, TValue>, CancellationToken, Task>? Handler { get; set; }

    public bool HandlerNeedsScope { get; set; }

    public KafkaProtobufConsumerOptions CreateOptions(IServiceProvider services)
    {
        var options = new KafkaProtobufConsumerOptions();
        foreach (Action<IServiceProvider, KafkaProtobufConsumerOptions> configure in Configure)
        {
            configure(services, options);
        }

        options.Validate(Name);
        if (Handler is null)
        {
            throw new InvalidOperationException("The KafkaProtobuf consumer '" + Name + "' has no handler: call Handle or HandleWith on its builder.");
        }

        return options;
    }
}
