using System;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Framing;
using Vectors.Telemetry.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Support;

/// <summary>
/// Asserts that a component is rejected the same way by every entry point: the non-throwing reader, the throwing
/// reader, the sync deserializer and the async one (as a faulted task).
/// </summary>
public static class Reject
{
    public const string Topic = "edges";

    public static SerializationContext Context(MessageComponentType component, byte[]? schemaIdHeader)
    {
        var headers = new Headers();
        if (schemaIdHeader is not null)
        {
            headers.Add(SchemaIdHeaderNames.For(component), schemaIdHeader);
        }

        return new SerializationContext(component, Topic, headers);
    }

    /// <summary>Asserts a framing fault: every reader entry point and both deserializer paths report it.</summary>
    public static InvalidFrameException Frame(
        byte[] data,
        FrameErrorCode code,
        int offset,
        byte[]? schemaIdHeader = null,
        SchemaIdentifier schemaId = default,
        FramedDeserializerOptions? options = null,
        MessageComponentType component = MessageComponentType.Value)
    {
        FrameErrorLocation location = schemaIdHeader is null ? FrameErrorLocation.RecordData : FrameErrorLocation.SchemaIdHeader;
        var expected = new FrameError(code, offset, location, schemaId);
        SerializationContext context = Context(component, schemaIdHeader);
        var reader = new FrameReader(options?.Framing ?? new FramingOptions());

        Assert.False(reader.TryRead(data, context, out _, out FrameError error));
        Assert.Equal(expected, error);

        InvalidFrameException fromReader = Assert.Throws<InvalidFrameException>(() => reader.Read(data, context));
        Assert.Equal(expected, fromReader.Error);

        var deserializer = new FramedProtobufDeserializer<Reading>(options);
        InvalidFrameException sync = Assert.Throws<InvalidFrameException>(() => deserializer.Deserialize(data, isNull: false, context));
        AssertDescribes(sync, expected, component);

        Task<Reading?> task = deserializer.DeserializeAsync(data, isNull: false, context);
        Assert.True(task.IsFaulted, "bad data must fault the task, not throw synchronously");
        InvalidFrameException async = Assert.IsType<InvalidFrameException>(task.Exception!.InnerException);
        AssertDescribes(async, expected, component);
        return sync;
    }

    public static void AssertDescribes(InvalidFrameException e, FrameError expected, MessageComponentType component)
    {
        Assert.Equal(expected, e.Error);
        Assert.Equal(expected.Code, e.ErrorCode);
        Assert.Equal(expected.Offset, e.Offset);
        Assert.Equal(expected.Location, e.Location);
        Assert.Equal(expected.SchemaId, e.SchemaId);
        Assert.Equal(component, e.Component);
        Assert.Equal(Topic, e.Topic);
        Assert.Contains(expected.Code.ToString(), e.Message, StringComparison.Ordinal);
        Assert.Contains("at byte " + expected.Offset, e.Message, StringComparison.Ordinal);
        Assert.Contains(Topic, e.Message, StringComparison.Ordinal);
        Assert.Null(e.InnerException);
    }
}
