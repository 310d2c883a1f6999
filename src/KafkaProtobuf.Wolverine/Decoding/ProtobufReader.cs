using System;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Microsoft.Extensions.Logging;
using ProtobufMessage = Google.Protobuf.IMessage;

namespace KafkaProtobuf.Wolverine.Decoding;

/// <summary>
/// Reads a record's value with the library's <see cref="MultiTypeProtobufDeserializer"/> (schema id from the prefix or a
/// header, the message-index path, the writer's file from the registry or compiled types). A record that cannot be read
/// throws <see cref="InvalidFrameException"/>; a schema source that fails is an outage, not bad data: the waiting reads
/// try again, backing off, until it answers or the application stops, so the record is neither dead-lettered nor passed.
/// </summary>
internal sealed partial class ProtobufReader
{
    /// <summary>The first wait after a failed schema lookup; it doubles, with jitter, up to <see cref="MaxOutageDelay"/>.</summary>
    internal static readonly TimeSpan FirstOutageDelay = TimeSpan.FromMilliseconds(100);

    /// <summary>The longest wait between two lookups while the schema source fails.</summary>
    internal static readonly TimeSpan MaxOutageDelay = TimeSpan.FromSeconds(5);

    private readonly MultiTypeProtobufDeserializer _values;
    private readonly ExponentialBackoff _backoff = new(FirstOutageDelay, MaxOutageDelay);

    public ProtobufReader(MultiTypeProtobufDeserializer values) => _values = values;

    /// <summary>Where outages are logged (the application's logger once the mapper is built).</summary>
    public ILogger Log { get; set; } = Microsoft.Extensions.Logging.Abstractions.NullLogger.Instance;

    /// <summary>Reads the value; null for a tombstone, or a type the deserializer was told to skip.</summary>
    /// <exception cref="InvalidFrameException">The record cannot be read.</exception>
    /// <exception cref="SchemaUnavailableException">The writer's schema could not be obtained.</exception>
    public ProtobufMessage? Read(byte[]? value, string topic, Confluent.Kafka.Headers headers) =>
        _values.Deserialize(value, value is null, ValueOf(topic, headers));

    /// <summary>
    /// <see cref="Read"/>, waiting out a failing schema source on this thread (the listener's consume loop: what comes
    /// after the record waits with it, in order).
    /// </summary>
    /// <exception cref="OperationCanceledException"><paramref name="stopping"/> was cancelled while the source failed.</exception>
    public ProtobufMessage? ReadWaitingOutOutages(byte[]? value, string topic, Confluent.Kafka.Headers headers, CancellationToken stopping)
    {
        for (int attempt = 1; ; attempt++)
        {
            try
            {
                return Read(value, topic, headers);
            }
            catch (SchemaUnavailableException e)
            {
                TimeSpan delay = OutageDelay(e, attempt, topic);
                if (stopping.WaitHandle.WaitOne(delay))
                {
                    throw new OperationCanceledException("The application stopped while the writer's schema could not be obtained.", e, stopping);
                }
            }
        }
    }

    /// <summary><see cref="ReadWaitingOutOutages"/> for async callers (an inbox replaying a stored envelope).</summary>
    public async ValueTask<ProtobufMessage?> ReadWaitingOutOutagesAsync(byte[]? value, string topic, Confluent.Kafka.Headers headers, CancellationToken stopping)
    {
        for (int attempt = 1; ; attempt++)
        {
            try
            {
                return await _values.DeserializeAsync(value, value is null, ValueOf(topic, headers)).ConfigureAwait(false);
            }
            catch (SchemaUnavailableException e)
            {
                await Task.Delay(OutageDelay(e, attempt, topic), stopping).ConfigureAwait(false);
            }
        }
    }

    private static SerializationContext ValueOf(string topic, Confluent.Kafka.Headers headers) => new(MessageComponentType.Value, topic, headers);

    private TimeSpan OutageDelay(SchemaUnavailableException e, int attempt, string topic)
    {
        TimeSpan delay = _backoff.Delay(attempt);
        SchemaUnavailable(Log, e, topic, attempt, (int)delay.TotalMilliseconds);
        return delay;
    }

    [LoggerMessage(1, LogLevel.Warning, "The writer's schema of a record of {Topic} could not be obtained (attempt {Attempt}); the record and those after it wait {DelayMs} ms and are read again")]
    private static partial void SchemaUnavailable(ILogger logger, Exception exception, string topic, int attempt, int delayMs);
}
