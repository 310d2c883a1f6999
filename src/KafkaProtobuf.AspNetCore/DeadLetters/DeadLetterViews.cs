using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.AspNetCore.Json;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Redrive;

namespace KafkaProtobuf.AspNetCore.DeadLetters;

/// <summary>
/// Dead letters as the page shows them: grouped by failure, each key and value decoded to JSON through the writer's
/// schema when it can be (else text, else hex), headers as text; everything from the record made inert (control and
/// bidirectional characters escaped) and cut past the page's limit with its size. Decoding runs in the request, on the
/// page's own reader and schema cache: the application's consumers never wait for it.
/// </summary>
internal sealed class DeadLetterViews(RecordDecoder decoder, int maxShownChars)
{
    /// <summary>The window's records grouped by failure, groups in the order of their newest record.</summary>
    public async Task<IReadOnlyList<FailureGroupView>> GroupAsync(IReadOnlyList<ConsumeResult<byte[], byte[]>> records, CancellationToken cancellationToken)
    {
        var groups = new List<(string Key, FailureGroupView Group, List<DeadLetterView> Records)>();
        foreach (ConsumeResult<byte[], byte[]> record in records)
        {
            DeadLetter letter = DeadLetter.Read(record);
            string message = LastHeader(record, DeadLetterHeaderNames.ErrorMessage) ?? string.Empty;
            string code = Inert(letter.ErrorCode ?? "(none)", 200);
            string component = Inert(letter.Component ?? "(none)", 50);
            string firstLine = Inert(FirstLine(message), 300);
            string key = code + "\n" + component + "\n" + firstLine;
            DeadLetterView view = await ViewAsync(letter, message, cancellationToken).ConfigureAwait(false);
            int at = groups.FindIndex(g => g.Key == key);
            if (at < 0)
            {
                groups.Add((key, new FailureGroupView { Code = code, Component = component, FirstLine = firstLine }, [view]));
            }
            else
            {
                groups[at].Records.Add(view);
            }
        }

        return groups.Select(g =>
        {
            g.Group.Count = g.Records.Count;
            g.Group.Records = g.Records;
            return g.Group;
        }).ToList();
    }

    private async Task<DeadLetterView> ViewAsync(DeadLetter letter, string message, CancellationToken cancellationToken)
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
            ErrorMessage = InertLines(message, 2000),
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
        DecodedRecordPart? decoded = null;
        try
        {
            decoded = await decoder.DecodeAsync(bytes, new SerializationContext(component, topic, headers), cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            part.Problem = "the schema source failed: " + Inert(e.Message, 500); // an outage, not bad data: shown as bytes
        }

        if (decoded is { SchemaId: not null })
        {
            part.SchemaId = decoded.SchemaId;
            part.TypeName = decoded.TypeName;
            if (decoded.Json is { } json)
            {
                part.Kind = "json";
                (part.Text, part.Cut) = Shown(InertJson(json));
                return part;
            }

            part.Problem ??= decoded.Problem is null ? null : Inert(decoded.Problem, 500);
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

    /// <summary>
    /// Decoded JSON made inert: its strings already escape control characters, but not bidirectional ones or C1 controls,
    /// which may only stand inside strings, where a <c>\uXXXX</c> escape means the same.
    /// </summary>
    internal static string InertJson(string json)
    {
        StringBuilder? inert = null;
        for (int i = 0; i < json.Length; i++)
        {
            char c = json[i];
            if ((BoundedText.IsControl(c) && c is not '\n' and not '\r' and not '\t') || BoundedText.IsBidiControl(c) || c is '\u2028' or '\u2029')
            {
                inert ??= new StringBuilder(json, 0, i, json.Length + 16);
                inert.Append("\\u").Append(((int)c).ToString("x4", System.Globalization.CultureInfo.InvariantCulture));
            }
            else
            {
                inert?.Append(c);
            }
        }

        return inert?.ToString() ?? json;
    }

    private static string? LastHeader(ConsumeResult<byte[], byte[]> record, string name) =>
        record.Message.Headers?.Where(h => h.Key == name).Select(h => AsText(h.GetValueBytes())).LastOrDefault();

    private static string FirstLine(string message)
    {
        int end = message.IndexOfAny(['\r', '\n']);
        return end < 0 ? message : message.Substring(0, end);
    }

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
