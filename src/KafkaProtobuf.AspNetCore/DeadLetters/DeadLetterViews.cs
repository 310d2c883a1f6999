using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.AspNetCore.Json;
using KafkaProtobuf.Decoding;
using KafkaProtobuf.Redrive;

namespace KafkaProtobuf.AspNetCore.DeadLetters;

/// <summary>
/// A window of dead letters as the page shows it: the library's groups by failure, each key and value decoded by the
/// library's <see cref="WriterSchemaDecoder"/> when it can be (else text, else hex), headers as text; everything from
/// the record made inert (control and bidirectional characters escaped) and cut past the page's limit with its size.
/// Decoding runs in the request, with the page's own decoder and cache: the application's consumers never wait for it.
/// </summary>
internal sealed class DeadLetterViews(WriterSchemaDecoder decoder, int maxShownChars)
{
    /// <summary>The window's groups, in the order of their newest record.</summary>
    public async Task<IReadOnlyList<FailureGroupView>> GroupAsync(IReadOnlyList<DeadLetterGroup> groups, CancellationToken cancellationToken)
    {
        var views = new List<FailureGroupView>(groups.Count);
        foreach (DeadLetterGroup group in groups)
        {
            var records = new List<DeadLetterView>(group.DeadLetters.Count);
            foreach (DeadLetter letter in group.DeadLetters)
            {
                records.Add(await ViewAsync(letter, cancellationToken).ConfigureAwait(false));
            }

            views.Add(new FailureGroupView
            {
                Code = Inert(group.ErrorCode ?? "(none)", 200),
                Component = Inert(group.Component ?? "(none)", 50),
                Pattern = Inert(group.Pattern, DeadLetterGroup.MaxFirstLineChars),
                Example = Inert(group.Example, DeadLetterGroup.MaxFirstLineChars),
                Count = records.Count,
                Records = records,
            });
        }

        return views;
    }

    private async Task<DeadLetterView> ViewAsync(DeadLetter letter, CancellationToken cancellationToken)
    {
        ConsumeResult<byte[], byte[]> record = letter.Record;
        string topic = letter.SourceTopic ?? record.Topic;
        return new DeadLetterView
        {
            Partition = record.Partition.Value,
            Offset = record.Offset.Value,
            Timestamp = record.Message.Timestamp.Type == TimestampType.NotAvailable ? null : DateTimeOffset.FromUnixTimeMilliseconds(record.Message.Timestamp.UnixTimestampMs),
            SourceTopic = letter.SourceTopic is null ? null : Inert(letter.SourceTopic, 300),
            SourcePartition = letter.SourcePartition,
            SourceOffset = letter.SourceOffset,
            RedriveCount = letter.RedriveCount,
            Source = Inert(letter.DescribeSource(), 500),
            Provenance = letter.Provenance.ToString().ToLowerInvariant(), // none, unchecked, verified, unverified
            ErrorMessage = InertLines(letter.ErrorMessage ?? string.Empty, 2000),
            Key = await PartAsync(record.Message.Key, MessageComponentType.Key, topic, record.Message.Headers, cancellationToken).ConfigureAwait(false),
            Value = await PartAsync(record.Message.Value, MessageComponentType.Value, topic, record.Message.Headers, cancellationToken).ConfigureAwait(false),
            Headers = (record.Message.Headers ?? [])
                .Select(h => new HeaderView { Name = Inert(h.Key, 300), Value = Inert(AsText(h.GetValueBytes()), 1000) })
                .ToList(),
        };
    }

    private async Task<PartView> PartAsync(
        byte[]? bytes, MessageComponentType component, string topic, Headers? headers, CancellationToken cancellationToken)
    {
        if (bytes is null)
        {
            return new PartView { Kind = "null" };
        }

        var part = new PartView { Size = bytes.Length };
        DecodedPart? decoded = null;
        try
        {
            decoded = await decoder.DecodeAsync(bytes, new SerializationContext(component, topic, headers), cancellationToken).ConfigureAwait(false);
        }
        catch (SchemaUnavailableException e)
        {
            part.Problem = "the schema source failed: " + Inert(e.InnerException?.Message ?? e.Message, 500); // an outage, not bad data: shown as bytes
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            // Whatever else one record's bytes or schema make fail, that record is shown as bytes, never the page's 500.
            part.Problem = "the record could not be decoded: " + BoundedText.Describe(e);
        }

        if (decoded is { IsFramed: true })
        {
            part.SchemaId = decoded.SchemaId.ToString();
            part.TypeName = decoded.WriterType?.FullName;
            if (decoded.Json is { } json)
            {
                part.Kind = "json";
                (part.Text, part.Cut) = Shown(json); // inert already: the decoder escapes what JSON strings could hide
                return part;
            }

            part.Problem ??= decoded.ErrorMessage is { } problem ? Inert(problem, 500)
                : decoder.DecodesPayloads ? null
                : "no schema source is set for the page: the payload is not decoded";
        }

        string text = AsText(bytes);
        if (IsPlainText(bytes, text))
        {
            part.Kind = "text";
            (part.Text, part.Cut) = Shown(Inert(text, int.MaxValue));
        }
        else
        {
            part.Kind = "hex";
            int shownBytes = Math.Min(bytes.Length, maxShownChars / 3);
            part.Text = Hex(bytes, shownBytes);
            part.Cut = shownBytes < bytes.Length;
        }

        return part;
    }

    private (string Text, bool Cut) Shown(string text) =>
        text.Length <= maxShownChars ? (text, false) : (text.Substring(0, char.IsHighSurrogate(text[maxShownChars - 1]) ? maxShownChars - 1 : maxShownChars), true);

    /// <summary>Like <see cref="Inert"/>, its line breaks kept (the page shows them as breaks, in a text node).</summary>
    internal static string InertLines(string text, int maxChars) =>
        Inert(string.Join("\n", text.Split('\n').Select(line => line.TrimEnd('\r'))), maxChars).Replace("\\x0a", "\n", StringComparison.Ordinal);

    /// <summary>Outside text made inert (control and bidirectional characters written as escapes) and cut.</summary>
    internal static string Inert(string text, int maxChars) => BoundedText.Cut(text, maxChars);

    private static string AsText(byte[]? bytes) => bytes is null ? string.Empty : Encoding.UTF8.GetString(bytes);

    /// <summary>Bytes that are UTF-8 text a person would read (no replacement characters, few controls).</summary>
    private static bool IsPlainText(byte[] bytes, string text)
    {
        if (text.Contains('\uFFFD', StringComparison.Ordinal) && !(bytes.Length >= 3 && bytes.AsSpan().IndexOf([(byte)0xEF, (byte)0xBF, (byte)0xBD]) >= 0))
        {
            return false;
        }

        int controls = text.Count(c => char.IsControl(c) && c is not '\n' and not '\r' and not '\t');
        return controls * 20 <= text.Length;
    }

    private static string Hex(byte[] bytes, int count)
    {
        var hex = new StringBuilder(count * 3);
        for (int i = 0; i < count; i++)
        {
            hex.Append(bytes[i].ToString("x2", System.Globalization.CultureInfo.InvariantCulture));
            hex.Append(i % 16 == 15 ? '\n' : ' ');
        }

        return hex.ToString().TrimEnd();
    }
}
