using System;
using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf;

/// <summary>
/// What a <see cref="MultiTypeProtobufDeserializer"/> returns for a record it skipped without parsing (see
/// <see cref="UnregisteredMessageTypeHandling.Skip"/>): a marker naming the writer's type, distinct from the
/// <see langword="null"/> of a tombstone. One instance per type, shared: skipping allocates nothing.
/// </summary>
/// <example><c>if (result.Message.Value is SkippedMessage skipped) { log(skipped.WriterType.FullName); }</c></example>
public sealed class SkippedMessage : IMessage
{
    internal SkippedMessage(MessageDescriptor writerType) => WriterType = writerType;

    /// <summary>The message type the record was written as.</summary>
    public MessageDescriptor WriterType { get; }

    /// <summary>A marker has no fields: its descriptor is that of <c>google.protobuf.Empty</c>.</summary>
    MessageDescriptor IMessage.Descriptor => Google.Protobuf.WellKnownTypes.Empty.Descriptor;

    /// <summary>A marker has no content to merge into.</summary>
    /// <param name="input">Ignored.</param>
    /// <exception cref="NotSupportedException">Always.</exception>
    void IMessage.MergeFrom(CodedInputStream input) =>
        throw new NotSupportedException("A skipped record has no content; it was never parsed.");

    /// <summary>Writes nothing: a marker has no content.</summary>
    /// <param name="output">Ignored.</param>
    void IMessage.WriteTo(CodedOutputStream output)
    {
    }

    /// <summary>Zero: a marker has no content.</summary>
    /// <returns>0.</returns>
    int IMessage.CalculateSize() => 0;

    /// <summary>Returns <c>skipped shop.v1.OrderShipped</c>.</summary>
    /// <returns>A description for logs.</returns>
    public override string ToString() => "skipped " + WriterType.FullName;
}
