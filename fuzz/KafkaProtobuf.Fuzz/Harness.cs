using System;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Framing;
using Tests.Inventory.V1;
using Vectors.Telemetry.V1;

namespace KafkaProtobuf.Fuzz;

/// <summary>
/// What every fuzz input must satisfy, shared by the AFL harness and the regression tests (which compile this file
/// too). An input is turned into a record: byte 0 picks options, bytes 1.. optionally a schema-id header, the rest is
/// the key or value. The invariant: a valid result or <see cref="InvalidFrameException"/>; any other exception, a
/// disagreement between entry points, or allocation far beyond the input's size is a finding (it throws
/// <see cref="FuzzFindingException"/>, which AFL records as a crash).
/// </summary>
public static class Harness
{
    public static readonly string[] Targets = ["reader", "typed", "multi"];

    private static readonly FrameReader[] Readers =
    [
        new(new FramingOptions { MessageIndexEncoding = MessageIndexEncoding.ZigZag, SchemaIdLookup = SchemaIdLookup.HeaderThenPrefix }),
        new(new FramingOptions { MessageIndexEncoding = MessageIndexEncoding.LegacyUnsigned, SchemaIdLookup = SchemaIdLookup.HeaderThenPrefix }),
        new(new FramingOptions { MessageIndexEncoding = MessageIndexEncoding.ZigZag, SchemaIdLookup = SchemaIdLookup.PrefixOnly }),
        new(new FramingOptions { MessageIndexEncoding = MessageIndexEncoding.LegacyUnsigned, SchemaIdLookup = SchemaIdLookup.PrefixOnly }),
    ];

    private static readonly FramedProtobufDeserializer<Device> Devices = new();
    private static readonly FramedProtobufDeserializer<Alert> Alerts = new(new FramedDeserializerOptions { VerifyWriterType = true });
    private static readonly FramedProtobufDeserializer<Device.Types.Firmware.Types.Signature> Signatures =
        new(new FramedDeserializerOptions { Framing = { MessageIndexEncoding = MessageIndexEncoding.LegacyUnsigned } });

    private static readonly MultiTypeProtobufDeserializer Everything = CreateMulti(UnregisteredMessageTypeHandling.Reject, all: true);
    private static readonly MultiTypeProtobufDeserializer SomeSkipped = CreateMulti(UnregisteredMessageTypeHandling.Skip, all: false);

    /// <summary>The record an input stands for.</summary>
    public readonly record struct Record(byte Options, byte[] Data, SerializationContext Context);

    public static Record Decode(ReadOnlySpan<byte> input)
    {
        byte options = input.IsEmpty ? (byte)0 : input[0];
        ReadOnlySpan<byte> rest = input.IsEmpty ? default : input[1..];
        var component = (options & 0x04) != 0 ? MessageComponentType.Key : MessageComponentType.Value;
        var headers = new Headers { { "traceparent", [0x00, 0x01] } };
        if ((options & 0x08) != 0 && !rest.IsEmpty)
        {
            int length = Math.Min(rest[0], rest.Length - 1);
            byte[]? value = (options & 0x10) != 0 && length == 0 ? null : rest.Slice(1, length).ToArray();
            headers.Add(SchemaIdHeaderNames.For(component), value);
            rest = rest[(1 + length)..];
        }

        return new Record(options, rest.ToArray(), new SerializationContext(component, "fuzz", headers));
    }

    /// <summary>Encodes a record as an input (for seeds): the inverse of <see cref="Decode"/>.</summary>
    public static byte[] Encode(byte options, byte[] data, byte[]? schemaIdHeader)
    {
        if (schemaIdHeader is null)
        {
            return [(byte)(options & ~0x08), .. data];
        }

        if (schemaIdHeader.Length > 255)
        {
            throw new ArgumentException("Header values in seeds are at most 255 bytes.", nameof(schemaIdHeader));
        }

        return [(byte)(options | 0x08), (byte)schemaIdHeader.Length, .. schemaIdHeader, .. data];
    }

    private static bool s_warm;

    public static void Check(string target, ReadOnlySpan<byte> input)
    {
        if (!s_warm)
        {
            // One-time costs (type initializers, the first exception's resources, resolver answers, metrics) are not
            // the input's doing: pay them before measuring.
            s_warm = true;
            WarmUp(target);
        }

        Record record = Decode(input);
        long before = GC.GetAllocatedBytesForCurrentThread();
        Run(target, record);

        // A claimed length or count that was trusted would allocate in proportion to the claim (up to gigabytes).
        // Legitimate costs stay far below this bound: Google.Protobuf keeps unknown fields, and each nested unknown
        // group costs ~400 B for its 2 input bytes (found by this fuzzer; see FuzzRegressions). The multi-type
        // deserializer's cache of resolver answers used to resize at thousands of ids (also found here; now sized once).
        ThrowIfAllocatedTooMuch(target, GC.GetAllocatedBytesForCurrentThread() - before, input.Length);
    }

    /// <summary>The allocation check: a finding when a run allocated more than 128 KiB plus 4 KiB per input byte.</summary>
    internal static void ThrowIfAllocatedTooMuch(string target, long allocated, int inputLength)
    {
        long bound = (128 * 1024) + (4096L * inputLength);
        if (allocated > bound)
        {
            throw new FuzzFindingException($"{target}: {allocated:N0} bytes allocated for a {inputLength}-byte input");
        }
    }

    private static void WarmUp(string target)
    {
        byte[] reading = new Reading { SensorId = "s" }.ToByteArray();
        byte[][] inputs =
        [
            [0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, .. reading],
            [0x01, 0x00, 0x00, 0x00, 0x00, 0x02, 0x01, 0x01, .. reading],
            [0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x02, 0x02, .. reading],
            [0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x0a, 0x05, 0x61],
            [0x00, 0x7b],
            [0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x14, .. reading],
            Encode(0x00, reading, [0x01, .. new byte[16], 0x00]),
            Encode(0x04, reading, [0x00, 0x00, 0x00, 0x00, 0x04, 0x02, 0x02]),
        ];
        for (int round = 0; round < 2; round++)
        {
            foreach (byte[] input in inputs)
            {
                Run(target, Decode(input));
            }
        }
    }

    private static void Run(string target, Record record)
    {
        switch (target)
        {
            case "reader":
                CheckReader(record);
                break;
            case "typed":
                CheckTyped(Devices, record);
                CheckTyped(Alerts, record);
                CheckTyped(Signatures, record);
                break;
            case "multi":
                CheckMulti(Everything, record);
                CheckMulti(SomeSkipped, record);
                break;
            default:
                throw new ArgumentException("Unknown target " + target, nameof(target));
        }
    }

    private static void CheckReader(Record record)
    {
        FrameReader reader = Readers[record.Options & 0x03];
        bool ok = reader.TryRead(record.Data, record.Context, out Frame frame, out FrameError error);
        if (ok)
        {
            int count = 0;
            foreach (int index in frame.MessageIndexPath)
            {
                if (index < 0)
                {
                    throw new FuzzFindingException("negative index in an accepted path");
                }

                count++;
            }

            if (count != frame.MessageIndexPath.Count || frame.PayloadOffset + frame.Payload.Length > Math.Max(record.Data.Length, frame.Payload.Length))
            {
                throw new FuzzFindingException("inconsistent frame");
            }

            Frame again = reader.Read(record.Data, record.Context); // must not throw
            if (again.PayloadOffset != frame.PayloadOffset || again.SchemaId != frame.SchemaId)
            {
                throw new FuzzFindingException("Read and TryRead disagree");
            }
        }
        else
        {
            if (error.Code == FrameErrorCode.None)
            {
                throw new FuzzFindingException("rejected without an error code");
            }

            try
            {
                reader.Read(record.Data, record.Context);
                throw new FuzzFindingException("Read accepted what TryRead rejected");
            }
            catch (InvalidFrameException e) when (e.Error == error)
            {
                // the same verdict
            }
        }
    }

    private static void CheckTyped<T>(FramedProtobufDeserializer<T> deserializer, Record record)
        where T : class, IMessage<T>, new()
    {
        bool ok = deserializer.TryDeserialize(record.Data, false, record.Context, out T? message, out FrameError error);
        try
        {
            T? thrown = deserializer.Deserialize(record.Data, false, record.Context);
            if (!ok || !Equals(message, thrown))
            {
                throw new FuzzFindingException("Deserialize accepted what TryDeserialize rejected, or parsed differently");
            }
        }
        catch (InvalidFrameException e) when (!ok && e.Error == error)
        {
            // the same verdict
        }
    }

    private static void CheckMulti(MultiTypeProtobufDeserializer deserializer, Record record)
    {
        bool ok = deserializer.TryDeserialize(record.Data, false, record.Context, out IMessage? message, out FrameError error);
        try
        {
            IMessage? thrown = deserializer.Deserialize(record.Data, false, record.Context);
            if (!ok || !Equals(message, thrown))
            {
                throw new FuzzFindingException("Deserialize accepted what TryDeserialize rejected, or parsed differently");
            }

            if (thrown is not null and not SkippedMessage && !Contains(deserializer, thrown.Descriptor))
            {
                throw new FuzzFindingException("a type that was not registered came back");
            }
        }
        catch (InvalidFrameException e) when (!ok && e.Error == error)
        {
            // the same verdict
        }
    }

    private static bool Contains(MultiTypeProtobufDeserializer deserializer, MessageDescriptor type)
    {
        foreach (MessageDescriptor registered in deserializer.MessageTypes)
        {
            if (registered == type)
            {
                return true;
            }
        }

        return false;
    }

    private static MultiTypeProtobufDeserializer CreateMulti(UnregisteredMessageTypeHandling handling, bool all)
    {
        var options = new MultiTypeDeserializerOptions
        {
            UnregisteredMessageTypes = handling,
            WriterSchemas = { Source = new FunctionSchemaSource(id => id.Id is int n && n % 2 == 0 ? TelemetryReflection.Descriptor : id.Id is not null ? InventoryReflection.Descriptor : null) },
        };
        options.WriterSchemas.Files[SchemaIdentifier.FromId(1)] = TelemetryReflection.Descriptor;
        options.WriterSchemas.Files[SchemaIdentifier.FromGuid(new Guid("535dfcf3-ca23-439a-a2aa-7cf32e6ddf10"))] = InventoryReflection.Descriptor;
        MessageDescriptor[] types = all
            ? [Reading.Descriptor, Device.Descriptor, Device.Types.Location.Descriptor, Device.Types.Firmware.Descriptor,
               Device.Types.Firmware.Types.Signature.Descriptor, Alert.Descriptor, StockLevel.Descriptor, Warehouse.Descriptor]
            : [Device.Descriptor, Alert.Descriptor, Warehouse.Descriptor];
        return new MultiTypeProtobufDeserializer(types, options);
    }
}

/// <summary>A broken invariant: AFL records the input as a crash.</summary>
public sealed class FuzzFindingException(string message) : Exception(message);
