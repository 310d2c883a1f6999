using System;
using System.Threading;

namespace KafkaProtobuf.Decoding;

/// <summary>How a <see cref="WriterSchemaDecoder"/> reads frames, where writer's schemas come from and how many it keeps, how long it waits for one, and how it writes JSON. Copied when the decoder is created.</summary>
public sealed class WriterSchemaDecoderOptions
{
    /// <summary>The default <see cref="SchemaTimeout"/>: 10 seconds.</summary>
    public static TimeSpan DefaultSchemaTimeout { get; } = TimeSpan.FromSeconds(10);

    /// <summary>
    /// How records are framed: where the schema identifier is, how message indexes are encoded and ordered (all of
    /// <see cref="MessageIndexOrder"/>'s values, <see cref="MessageIndexOrder.EitherByWriterSchema"/> included).
    /// </summary>
    public FramingOptions Framing { get; } = new();

    /// <summary>
    /// Where writers' files come from, in the deserializers' words: <see cref="WriterSchemaOptions.Source"/> (a
    /// registry client, any <see cref="ISchemaFileSource"/>), <see cref="WriterSchemaOptions.Files"/> known in advance,
    /// and <see cref="WriterSchemaOptions.CacheCapacity"/>. Neither a source nor files: framing only.
    /// <see cref="WriterSchemaOptions.VerifyCompatibility"/> does not apply (a decoder has no reader's type to compare).
    /// </summary>
    public WriterSchemaOptions WriterSchemas { get; } = new();

    /// <summary>
    /// How long one question to the schema source may take before the decoder gives up with
    /// <see cref="SchemaUnavailableException"/>; default <see cref="DefaultSchemaTimeout"/>;
    /// <see cref="Timeout.InfiniteTimeSpan"/>: only the caller's token stops it.
    /// </summary>
    public TimeSpan SchemaTimeout { get; set; } = DefaultSchemaTimeout;

    /// <summary>JSON indented, one field a line, rather than on one line. Default <see langword="false"/>.</summary>
    public bool Indented { get; set; }
}
