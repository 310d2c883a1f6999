using System;
using System.Threading.Tasks;
using Confluent.Kafka;

namespace KafkaProtobuf;

/// <summary>
/// The async face of a synchronous deserializer: the work is done on the caller's thread and the task returned is
/// already complete, or already faulted (bad data, an unavailable schema); a tombstone gets one cached task.
/// </summary>
internal static class CompletedDeserialization<T>
    where T : class
{
    private static readonly Task<T?> NullResult = Task.FromResult<T?>(null);

    internal static Task<T?> Run(ISpanDeserializer<T> deserializer, ReadOnlyMemory<byte> data, bool isNull, SerializationContext context)
    {
        if (isNull)
        {
            return NullResult;
        }

        try
        {
            return Task.FromResult(deserializer.Deserialize(data.Span, isNull: false, context));
        }
        catch (InvalidFrameException e)
        {
            return Task.FromException<T?>(e);
        }
        catch (SchemaUnavailableException e)
        {
            return Task.FromException<T?>(e);
        }
    }
}
