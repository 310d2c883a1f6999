using System;
using System.Buffers;
using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Redrive;
using KafkaProtobuf.Tool.Output;
using KafkaProtobuf.Tool.Schemas;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>
/// <c>kafka-protobuf dead-letters redrive --topic T.dlq</c>: dead letters written back to the topics their records came
/// from, once the bug is fixed (<see cref="DeadLetterRedrive"/>): filters, a dry run, a rate, progress on standard error
/// and a summary on standard output. Exit code 0 when every dead letter there was at the start was read, 2 on a usage
/// error, 3 when Kafka could not be reached or a write failed, 130 when interrupted (what was written is committed).
/// </summary>
internal static class DeadLettersCommand
{
    public static Command Create(TextWriter output, TextWriter error)
    {
        var kafka = new KafkaOptions();
        var provenance = new ProvenanceOptions();
        var topic = new Option<string>("--topic", "-t") { Description = "The dead-letter topic to read.", Required = true };
        var group = new Option<string?>("--group") { Description = "The consumer group that keeps the run's progress (default: kafkaprotobuf-redrive-TOPIC, and a hash of the filters when there are any).", HelpName = "id" };
        var to = new Option<string?>("--to") { Description = "Write everything to this topic instead of each record's source topic.", HelpName = "topic" };
        var keepPartition = new Option<bool>("--keep-partition") { Description = "Write each record to its source partition, not where the producer's partitioner puts its key." };
        var sourceTopic = new Option<string?>("--source-topic") { Description = "Only records that came from this topic.", HelpName = "topic" };
        var errorCode = new Option<string?>("--error-code") { Description = "Only dead letters with this error code: a frame error (UnknownMagicByte) or an exception type (System.TimeoutException).", HelpName = "code" };
        var component = new Option<string?>("--component") { Description = "Only dead letters of this component: key, value or handler.", HelpName = "key|value|handler" };
        component.AcceptOnlyFromAmong("key", "value", "handler");
        var since = new Option<DateTimeOffset?>("--since") { Description = "Only dead letters written at or after this time (ISO 8601).", HelpName = "time" };
        var until = new Option<DateTimeOffset?>("--until") { Description = "Only dead letters written before this time (ISO 8601).", HelpName = "time" };
        var fromOffset = new Option<long?>("--from-offset") { Description = "Only records at or after this offset of their source partition.", HelpName = "offset" };
        var toOffset = new Option<long?>("--to-offset") { Description = "Only records before this offset of their source partition.", HelpName = "offset" };
        var key = new Option<string?>("--key") { Description = "Only records with this key (UTF-8 text).", HelpName = "text" };
        var maxRedrives = new Option<int>("--max-redrives") { Description = "Skip records redriven this many times already (kafkaprotobuf.redrive.count).", DefaultValueFactory = _ => 3, HelpName = "n" };
        var force = new Option<bool>("--force") { Description = "Redrive records past --max-redrives too." };
        var dryRun = new Option<bool>("--dry-run") { Description = "Write and commit nothing: print what would be written." };
        var rate = new Option<double?>("--rate") { Description = "At most this many records written a second.", HelpName = "records/s" };
        var redrive = new Command("redrive", "Write dead letters back to the topics their records came from, byte for byte, with kafkaprotobuf.redrive.* headers; progress kept in a consumer group, so a stopped run resumes. Exit code 0 done, 2 usage, 3 Kafka unreachable or a write failed, 130 interrupted.")
        {
            topic, group, to, keepPartition, sourceTopic, errorCode, component, since, until, fromOffset, toOffset, key, maxRedrives, force, dryRun, rate,
        };
        kafka.AddTo(redrive);
        provenance.AddTo(redrive);
        redrive.SetAction(async (result, cancellationToken) =>
        {
            var config = new ClientConfig();
            RedriveOptions options;
            bool dry;
            try
            {
                kafka.ApplyTo(config, result, warning => error.WriteLine("kafka-protobuf dead-letters redrive: warning: " + warning));
                options = new RedriveOptions
                {
                    DeadLetterTopic = result.GetRequiredValue(topic),
                    GroupId = result.GetValue(group),
                    TargetTopic = result.GetValue(to),
                    KeepSourcePartition = result.GetValue(keepPartition),
                    SourceTopic = result.GetValue(sourceTopic),
                    ErrorCode = result.GetValue(errorCode),
                    Component = result.GetValue(component),
                    Since = result.GetValue(since),
                    Until = result.GetValue(until),
                    FromSourceOffset = result.GetValue(fromOffset),
                    ToSourceOffset = result.GetValue(toOffset),
                    Key = result.GetValue(key) is { } text ? Encoding.UTF8.GetBytes(text) : null,
                    MaxRedrives = result.GetValue(maxRedrives),
                    Force = result.GetValue(force),
                    RecordsPerSecond = result.GetValue(rate),
                    ProvenanceKeys = provenance.Keys(result),
                };
                dry = result.GetValue(dryRun);
            }
            catch (ArgumentException e)
            {
                await error.WriteLineAsync("kafka-protobuf dead-letters redrive: " + e.Message).ConfigureAwait(false);
                return ExitCodes.Usage;
            }

            var progress = new Progress(error);
            RedriveSummary summary;
            try
            {
                if (dry)
                {
                    // The library's one dry run, a plan's: what it lists is what every front-end lists. Its run is left
                    // unmade: without --dry-run the tool writes.
                    RedrivePlan plan = await DeadLetterRedrive.PlanAsync(config, options, cancellationToken).ConfigureAwait(false);
                    foreach (RedrivePlanEntry entry in plan.DeadLetters)
                    {
                        await output.WriteLineAsync(Describe(entry)).ConfigureAwait(false);
                    }

                    if (plan.HasMoreDeadLetters)
                    {
                        await output.WriteLineAsync("… and more (the first " + RedrivePlan.MaxListedDeadLetters.ToString(CultureInfo.InvariantCulture) + " are listed; the counts cover all)").ConfigureAwait(false);
                    }

                    summary = plan.DryRun;
                }
                else
                {
                    summary = await DeadLetterRedrive.RunAsync(config, options, progress.Saw, cancellationToken).ConfigureAwait(false);
                }
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                return ExitCodes.Interrupted; // a dry run stopped: nothing was written or committed
            }
            catch (ArgumentException e)
            {
                await error.WriteLineAsync("kafka-protobuf dead-letters redrive: " + e.Message).ConfigureAwait(false);
                return ExitCodes.Usage;
            }
            catch (Exception e) when (e is KafkaException or InvalidOperationException)
            {
                await error.WriteLineAsync("kafka-protobuf dead-letters redrive: " + TerminalText.Neutralize(e.Message)).ConfigureAwait(false);
                return ExitCodes.ConnectionFailure;
            }

            await output.WriteLineAsync(summary.ToString()).ConfigureAwait(false);
            if (summary.Failure is not null)
            {
                await error.WriteLineAsync("kafka-protobuf dead-letters redrive: " + TerminalText.Neutralize(summary.Failure)).ConfigureAwait(false);
                return ExitCodes.ConnectionFailure;
            }

            return summary.Completed ? ExitCodes.Ok : ExitCodes.Interrupted;
        });

        return new Command("dead-letters", "Work with dead-letter topics: list them, a window at a time, grouped by kind of failure; show one; write them back once fixed.") { CreateList(output, error), CreateShow(output, error), redrive };
    }

    /// <summary>
    /// <c>dead-letters list --topic T.dlq</c>: the newest window of a dead-letter topic (or the one before --before), its
    /// dead letters grouped by failure and decoded, one JSON object, through the library's <see cref="DeadLetterTopicReader"/>.
    /// </summary>
    private static Command CreateList(TextWriter output, TextWriter error)
    {
        var kafka = new KafkaOptions();
        var schema = new SchemaOptions();
        var provenance = new ProvenanceOptions();
        var topic = new Option<string>("--topic", "-t") { Description = "The dead-letter topic to read.", Required = true };
        var before = new Option<string?>("--before") { Description = "The window before this cursor (the \"older\" of the previous window, partition:offset,...); default the newest.", HelpName = "cursor" };
        var max = new Option<int>("--max", "-n") { Description = "The most dead letters in the window (1 to " + DeadLetterTopicReader.MaxWindowRecords + ").", DefaultValueFactory = _ => 50, HelpName = "n" };
        var keyFormat = new Option<string>("--key-format") { Description = "framed: keys are framed like values; string: UTF-8 text; bytes: base64.", DefaultValueFactory = _ => "framed", HelpName = "framed|string|bytes" };
        keyFormat.AcceptOnlyFromAmong("framed", "string", "bytes");
        var list = new Command("list", "A window of a dead-letter topic, newest first, grouped by kind of failure (error code, component, the message with what differs from record to record set aside), with a count and an example: each dead letter's source as its writer recorded it and how far that is believed, key and value decoded. One JSON object; its \"older\" is the --before of the next window. Reads and commits nothing.")
        {
            topic, before, max, keyFormat,
        };
        kafka.AddTo(list);
        schema.AddTo(list);
        provenance.AddTo(list);
        list.SetAction(async (result, cancellationToken) =>
        {
            var config = new ClientConfig();
            RecordParts parts;
            ProvenanceKeys? keys;
            DeadLetterCursor? cursor;
            int count = result.GetValue(max);
            void Warn(string warning) => error.WriteLine("kafka-protobuf dead-letters list: warning: " + warning);
            try
            {
                kafka.ApplyTo(config, result, Warn);
                if (!DeadLetterCursor.TryParse(result.GetValue(before), out cursor))
                {
                    throw new ArgumentException("--before is not a cursor: give the \"older\" of a window, partition:offset,...");
                }

                if (count < 1 || count > DeadLetterTopicReader.MaxWindowRecords)
                {
                    throw new ArgumentException("--max must be 1 to " + DeadLetterTopicReader.MaxWindowRecords.ToString(CultureInfo.InvariantCulture));
                }

                keys = provenance.Keys(result);
                parts = schema.Parts(result, Warn, indented: false);
            }
            catch (ArgumentException e)
            {
                await error.WriteLineAsync("kafka-protobuf dead-letters list: " + e.Message).ConfigureAwait(false);
                return ExitCodes.Usage;
            }

            using (parts)
            using (var reader = new DeadLetterTopicReader(config, keys))
            {
                string name = result.GetRequiredValue(topic);
                DeadLetterWindow? window;
                try
                {
                    window = await reader.ReadWindowAsync(name, cursor, count, cancellationToken).ConfigureAwait(false);
                }
                catch (KafkaException e)
                {
                    await error.WriteLineAsync("kafka-protobuf dead-letters list: cannot reach " + config.BootstrapServers + ": " + e.Error.Reason).ConfigureAwait(false);
                    return ExitCodes.ConnectionFailure;
                }

                if (window is null)
                {
                    await error.WriteLineAsync("kafka-protobuf dead-letters list: topic '" + name + "' does not exist").ConfigureAwait(false);
                    return ExitCodes.ConnectionFailure;
                }

                var buffer = new ArrayBufferWriter<byte>();
                try
                {
                    await WriteWindowAsync(buffer, window, new RecordJson(parts, result.GetValue(keyFormat)!, result.GetValue(schema.ExpectedType)), result.GetValue(schema.Format) == "pretty", cancellationToken).ConfigureAwait(false);
                }
                catch (SchemaUnavailableException e)
                {
                    await error.WriteLineAsync("kafka-protobuf dead-letters list: the schema registry failed: " + e.Message).ConfigureAwait(false);
                    return ExitCodes.ConnectionFailure;
                }

                await output.WriteLineAsync(TerminalText.EscapeBidi(Encoding.UTF8.GetString(buffer.WrittenSpan))).ConfigureAwait(false);
                return ExitCodes.Ok;
            }
        });
        return list;
    }

    /// <summary>
    /// <c>dead-letters show --topic T.dlq --partition P --offset O</c>: one dead letter, decoded, with where its record
    /// came from and how far that is believed, as a redrive would read it. One JSON object; reads and commits nothing.
    /// </summary>
    private static Command CreateShow(TextWriter output, TextWriter error)
    {
        var kafka = new KafkaOptions();
        var schema = new SchemaOptions();
        var provenance = new ProvenanceOptions();
        var topic = new Option<string>("--topic", "-t") { Description = "The dead-letter topic.", Required = true };
        var partition = new Option<int>("--partition", "-p") { Description = "The dead letter's partition.", Required = true, HelpName = "n" };
        var offset = new Option<long>("--offset", "-o") { Description = "The dead letter's offset.", Required = true, HelpName = "n" };
        var keyFormat = new Option<string>("--key-format") { Description = "framed: keys are framed like values; string: UTF-8 text; bytes: base64.", DefaultValueFactory = _ => "framed", HelpName = "framed|string|bytes" };
        keyFormat.AcceptOnlyFromAmong("framed", "string", "bytes");
        var show = new Command("show", "One dead letter: key and value decoded, headers, and what its writer recorded (where its record came from, why it failed, how often it was redriven) with how far that is believed. One JSON object; exit code 2 when there is no record there, 3 when Kafka cannot be reached. Reads and commits nothing.")
        {
            topic, partition, offset, keyFormat,
        };
        kafka.AddTo(show);
        schema.AddTo(show);
        provenance.AddTo(show);
        show.SetAction(async (result, cancellationToken) =>
        {
            var config = new ClientConfig();
            RecordParts parts;
            ProvenanceKeys? keys;
            void Warn(string warning) => error.WriteLine("kafka-protobuf dead-letters show: warning: " + warning);
            try
            {
                kafka.ApplyTo(config, result, Warn);
                if (result.GetValue(partition) < 0 || result.GetValue(offset) < 0)
                {
                    throw new ArgumentException("--partition and --offset are 0 or more");
                }

                keys = provenance.Keys(result);
                parts = schema.Parts(result, Warn, indented: false);
            }
            catch (ArgumentException e)
            {
                await error.WriteLineAsync("kafka-protobuf dead-letters show: " + e.Message).ConfigureAwait(false);
                return ExitCodes.Usage;
            }

            using (parts)
            using (var reader = new DeadLetterTopicReader(config, keys))
            {
                string name = result.GetRequiredValue(topic);
                DeadLetter? letter;
                try
                {
                    letter = await reader.ReadAsync(name, result.GetValue(partition), result.GetValue(offset), cancellationToken).ConfigureAwait(false);
                }
                catch (KafkaException e)
                {
                    await error.WriteLineAsync("kafka-protobuf dead-letters show: cannot reach " + config.BootstrapServers + ": " + e.Error.Reason).ConfigureAwait(false);
                    return ExitCodes.ConnectionFailure;
                }

                if (letter is null)
                {
                    await error.WriteLineAsync(TerminalText.Neutralize("kafka-protobuf dead-letters show: no record at " + name + " [" + result.GetValue(partition).ToString(CultureInfo.InvariantCulture) + "] @" + result.GetValue(offset).ToString(CultureInfo.InvariantCulture))).ConfigureAwait(false);
                    return ExitCodes.Usage;
                }

                var buffer = new ArrayBufferWriter<byte>();
                try
                {
                    using var writer = new Utf8JsonWriter(buffer, result.GetValue(schema.Format) == "pretty" ? JsonFormat.Indented : JsonFormat.Compact);
                    JsonFormat.WriteStartObject(writer);
                    await new RecordJson(parts, result.GetValue(keyFormat)!, result.GetValue(schema.ExpectedType))
                        .WritePropertiesAsync(writer, letter, cancellationToken).ConfigureAwait(false);
                    writer.WriteEndObject();
                }
                catch (SchemaUnavailableException e)
                {
                    await error.WriteLineAsync("kafka-protobuf dead-letters show: the schema registry failed: " + e.Message).ConfigureAwait(false);
                    return ExitCodes.ConnectionFailure;
                }

                await output.WriteLineAsync(TerminalText.EscapeBidi(Encoding.UTF8.GetString(buffer.WrittenSpan))).ConfigureAwait(false);
                return ExitCodes.Ok;
            }
        });
        return show;
    }

    private static async Task WriteWindowAsync(ArrayBufferWriter<byte> buffer, DeadLetterWindow window, RecordJson records, bool indented, CancellationToken cancellationToken)
    {
        using var writer = new Utf8JsonWriter(buffer, indented ? JsonFormat.Indented : JsonFormat.Compact);
        JsonFormat.WriteStartObject(writer);
        writer.WriteString("topic", window.Topic);
        writer.WriteNumber("total", window.Total);
        writer.WriteStartArray("partitions");
        foreach (DeadLetterPartitionRange range in window.Partitions)
        {
            writer.WriteStartObject();
            writer.WriteNumber("partition", range.Partition);
            writer.WriteNumber("start", range.Start);
            writer.WriteNumber("end", range.End);
            writer.WriteEndObject();
        }

        writer.WriteEndArray();
        writer.WriteNumber("count", window.DeadLetters.Count);
        if (window.Older is { } older)
        {
            writer.WriteString("older", older.ToString());
        }
        else
        {
            writer.WriteNull("older");
        }

        writer.WriteStartArray("groups");
        foreach (DeadLetterGroup group in window.Groups)
        {
            writer.WriteStartObject();
            writer.WriteString("errorCode", group.ErrorCode);
            writer.WriteString("component", group.Component);
            writer.WriteString("pattern", group.Pattern);
            writer.WriteString("example", group.Example);
            writer.WriteNumber("count", group.DeadLetters.Count);
            writer.WriteStartArray("records");
            foreach (DeadLetter deadLetter in group.DeadLetters)
            {
                writer.WriteStartObject();
                await records.WritePropertiesAsync(writer, deadLetter, cancellationToken).ConfigureAwait(false);
                writer.WriteEndObject();
            }

            writer.WriteEndArray();
            writer.WriteEndObject();
        }

        writer.WriteEndArray();
        writer.WriteEndObject();
    }

    /// <summary>A dead letter a dry run lists: what a redrive would do, its source and where it is (every field from Kafka made inert).</summary>
    private static string Describe(RedrivePlanEntry entry) =>
        TerminalText.Neutralize(string.Create(
            CultureInfo.InvariantCulture,
            $"{RedriveOutcomes.Describe(entry.Outcome, dryRun: true)}: {entry.DescribeSource()}, dead letter {entry.Position.Topic} [{entry.Position.Partition.Value}] @{entry.Position.Offset.Value} ({entry.ErrorCode ?? "no error code"}, {entry.Component ?? "?"}, redriven {entry.RedriveCount} times)"));

    /// <summary>What a run says as it goes: a line a second of counts and rate.</summary>
    private sealed class Progress(TextWriter error)
    {
        private readonly Stopwatch _clock = Stopwatch.StartNew();
        private TimeSpan _lastLine;
        private long _read;
        private long _written;

        public void Saw(DeadLetter deadLetter, RedriveOutcome outcome)
        {
            _read++;
            if (outcome == RedriveOutcome.Written)
            {
                _written++;
            }

            if (_clock.Elapsed - _lastLine >= TimeSpan.FromSeconds(1))
            {
                _lastLine = _clock.Elapsed;
                error.WriteLine(string.Create(CultureInfo.InvariantCulture, $"read {_read}, written {_written}, {_written / Math.Max(_clock.Elapsed.TotalSeconds, 0.001):F0} records/s"));
            }
        }
    }
}
