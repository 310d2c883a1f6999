using System;
using System.CommandLine;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Decoding;
using KafkaProtobuf.Framing;
using KafkaProtobuf.Tool.Schemas;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Tool.Output;

namespace KafkaProtobuf.Tool.Commands;

/// <summary><c>kafka-protobuf frame</c>: one framed key or value laid out byte by byte, and its payload as JSON.</summary>
internal static class FrameCommand
{
    public static Command Create(TextWriter output, TextWriter error)
    {
        var input = new Argument<string>("bytes") { Description = "The framed bytes: hex (spaces and colons allowed), base64, or @FILE for a file's raw bytes (any size; @ is never a response file here)." };
        var header = new Option<string?>("--schema-id-header") { Description = "The __value_schema_id / __key_schema_id header's bytes (hex, base64 or @FILE), for records whose schema id is in a header.", HelpName = "bytes" };
        var key = new Option<bool>("--key") { Description = "The bytes are a key (names the key's schema-id header)." };
        var schema = new SchemaOptions();
        var command = new Command("frame", "Lay out one framed record's bytes: magic byte, schema id or GUID, message-index path, payload; a caret under the offending byte when the framing is bad.")
        {
            input,
            header,
            key,
        };
        schema.AddTo(command);
        command.SetAction(async (result, cancellationToken) =>
        {
            byte[] data;
            byte[]? headerBytes;
            RecordParts parts;
            try
            {
                data = ReadBytes(result.GetRequiredValue(input));
                headerBytes = result.GetValue(header) is { } h ? ReadBytes(h) : null;
                parts = schema.Parts(result, warning => error.WriteLine("kafka-protobuf frame: warning: " + warning), indented: result.GetValue(schema.Format) == "pretty");
            }
            catch (ArgumentException e)
            {
                await error.WriteLineAsync("kafka-protobuf frame: " + e.Message).ConfigureAwait(false);
                return ExitCodes.Usage;
            }

            using (parts)
            {
                MessageComponentType component = result.GetValue(key) ? MessageComponentType.Key : MessageComponentType.Value;
                var headers = new Headers();
                if (headerBytes is not null)
                {
                    headers.Add(component == MessageComponentType.Key ? SchemaIdHeaderNames.Key : SchemaIdHeaderNames.Value, headerBytes);
                }

                ShownPart part;
                try
                {
                    part = await parts.DecodeAsync(data, new SerializationContext(component, string.Empty, headers), result.GetValue(schema.ExpectedType), cancellationToken).ConfigureAwait(false);
                }
                catch (Exception e) when (e is SchemaRegistryRequestException or SchemaUnavailableException or UnauthorizedAccessException)
                {
                    await error.WriteLineAsync("kafka-protobuf frame: the schema registry failed: " + e.Message).ConfigureAwait(false);
                    return ExitCodes.ConnectionFailure;
                }
                catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
                {
                    return ExitCodes.Interrupted; // Ctrl+C while the registry was being asked
                }
                catch (Exception e) when (e is not OperationCanceledException)
                {
                    // Whatever else the bytes or their schema make fail: said, not thrown.
                    await error.WriteLineAsync("kafka-protobuf frame: the record could not be decoded: " + BoundedText.Describe(e)).ConfigureAwait(false);
                    return ExitCodes.BadRecords;
                }

                await output.WriteAsync(Layout(data, part, parts.HasSchemas, component)).ConfigureAwait(false);
                return part.Part.IsBad ? ExitCodes.BadRecords : ExitCodes.Ok;
            }
        });
        return command;
    }

    /// <summary>How many bytes the hex line shows: the framing is at the start, and a 200 KB record in hex helps nobody.</summary>
    internal const int HexBytesShown = 256;

    /// <summary>The human layout: the bytes in hex, then one line per framing part, then the message or the error.</summary>
    internal static string Layout(byte[] data, ShownPart shown, bool haveSchemas, MessageComponentType component = MessageComponentType.Value)
    {
        DecodedPart part = shown.Part;
        var text = new StringBuilder();
        string hex = string.Join(' ', data.Take(HexBytesShown).Select(b => b.ToString("x2", CultureInfo.InvariantCulture)));
        text.Append("bytes          ").Append(data.Length.ToString(CultureInfo.InvariantCulture)).Append(": ").Append(hex.Length == 0 ? "(empty)" : hex);
        text.AppendLine(data.Length > HexBytesShown ? string.Create(CultureInfo.InvariantCulture, $" ... (the first {HexBytesShown} shown)") : string.Empty);
        if (!part.IsFramed)
        {
            FrameError error = part.Error!.Value;
            text.Append("error          ").AppendLine(error.ToString());
            if (error.Location == FrameErrorLocation.RecordData && error.Offset < HexBytesShown)
            {
                // The caret under the offending byte of the hex line (3 characters per byte after the label).
                int column = "bytes          ".Length + data.Length.ToString(CultureInfo.InvariantCulture).Length + 2 + (Math.Min(error.Offset, data.Length) * 3);
                text.Append(' ', column).AppendLine("^^");
            }

            return text.ToString();
        }

        text.Append("magic byte     ").AppendLine(part.SchemaIdPlacement == SchemaIdPlacement.Header
            ? "(in the " + (component == MessageComponentType.Key ? SchemaIdHeaderNames.Key : SchemaIdHeaderNames.Value) + " header)"
            : $"0x{data[0]:x2} at 0");
        text.Append("schema        ").AppendLine(part.SchemaId.Guid is { } guid ? " GUID " + guid.ToString("D") : " id " + part.SchemaId.Id?.ToString(CultureInfo.InvariantCulture));
        text.Append("message index  ").AppendLine(RecordParts.PathText(part.MessageIndexPath));
        text.Append("payload        ").Append(part.PayloadLength.ToString(CultureInfo.InvariantCulture)).Append(" bytes at ").AppendLine(part.PayloadOffset.ToString(CultureInfo.InvariantCulture));
        // What comes from the record or its schema (names, texts, a registry's words) is made inert for the terminal.
        if (part.WriterType is { } type)
        {
            text.Append("type           ").AppendLine(TerminalText.Neutralize(type.FullName));
        }

        if (part.Json is not null)
        {
            text.Append("message        ").AppendLine(TerminalText.EscapeBidi(part.Json)); // JSON: its controls are escaped already
        }
        else if (part.ErrorMessage is not null)
        {
            text.Append("error          ").AppendLine(TerminalText.Neutralize(part.ErrorMessage));
        }

        if (shown.Hint is not null)
        {
            text.Append("hint           ").AppendLine(TerminalText.Neutralize(shown.Hint));
        }
        else if (!haveSchemas)
        {
            text.AppendLine("message        (give --schema-registry or --descriptor-set to decode the payload)");
        }

        return text.ToString();
    }

    /// <summary>Hex, base64 or @file (the parser leaves @ tokens alone: see <see cref="KafkaProtobufTool.ParserConfiguration"/>).</summary>
    /// <exception cref="ArgumentException">Neither hex nor base64, or a file that cannot be read.</exception>
    internal static byte[] ReadBytes(string text)
    {
        if (text.StartsWith('@'))
        {
            try
            {
                return File.ReadAllBytes(text[1..]);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                throw new ArgumentException($"cannot read {text[1..]}: {e.Message}", e);
            }
        }

        string compact = new(text.Where(c => c is not (' ' or ':' or '-')).ToArray());
        if (compact.Length % 2 == 0 && compact.All(Uri.IsHexDigit))
        {
            return Convert.FromHexString(compact);
        }

        try
        {
            return Convert.FromBase64String(text.Trim());
        }
        catch (FormatException)
        {
            throw new ArgumentException($"'{text}' is neither hex nor base64 (or @file)");
        }
    }
}
