using System;
using System.Buffers;
using System.Collections.Generic;
using System.CommandLine;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Decoding;
using KafkaProtobuf.Framing;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Tool.Output;
using KafkaProtobuf.Tool.Schemas;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>
/// <c>kafka-protobuf consume</c>: a topic's records, one JSON object each: partition, offset, timestamp, key and value
/// taken apart and decoded, headers, and this package's dead-letter headers read back. Partitions are assigned, not
/// subscribed: no consumer group, nothing committed. Bad records are shown with their error and never stop it.
/// </summary>
internal static class ConsumeCommand
{
    public static Command Create(TextWriter output, TextWriter error)
    {
        var kafka = new KafkaOptions();
        var topic = new Option<string>("--topic", "-t") { Description = "The topic to read.", Required = true };
        var partition = new Option<int?>("--partition", "-p") { Description = "Only this partition (default: all)." };
        var offset = new Option<long?>("--offset", "-o") { Description = "Start at this offset (in every partition read)." };
        var fromBeginning = new Option<bool>("--from-beginning") { Description = "Start at each partition's first record (default: only new records)." };
        var max = new Option<int?>("--max", "-n") { Description = "Stop after this many records." };
        var untilEnd = new Option<bool>("--until-end") { Description = "Stop once every partition read is at its end (as it was when the tool started)." };
        var failOnError = new Option<bool>("--fail-on-error") { Description = "Exit with code 1 if any record could not be read." };
        var keyFormat = new Option<string>("--key-format") { Description = "framed: keys are framed like values; string: UTF-8 text; bytes: base64.", DefaultValueFactory = _ => "framed", HelpName = "framed|string|bytes" };
        keyFormat.AcceptOnlyFromAmong("framed", "string", "bytes");
        var schema = new SchemaOptions();
        var provenance = new ProvenanceOptions();
        var command = new Command("consume", "Read a topic's records (a dead-letter topic too) and print each: key and value decoded to JSON from the writer's schema, headers, dead-letter details. No consumer group; nothing is committed.")
        {
            topic, partition, offset, fromBeginning, max, untilEnd, failOnError, keyFormat,
        };
        kafka.AddTo(command);
        schema.AddTo(command);
        provenance.AddTo(command);
        command.SetAction(async (result, cancellationToken) =>
        {
            RecordParts parts;
            ProvenanceCodec codec;
            var config = new ConsumerConfig
            {
                GroupId = "kafka-protobuf-" + Guid.NewGuid().ToString("N"), // never joined: partitions are assigned
                EnableAutoCommit = false,
                EnableAutoOffsetStore = false,
                EnablePartitionEof = true,
                AllowAutoCreateTopics = false,
            };
            void Warn(string warning) => error.WriteLine("kafka-protobuf consume: warning: " + warning);
            try
            {
                kafka.ApplyTo(config, result, Warn);

                if (result.GetValue(offset) is not null && result.GetValue(fromBeginning))
                {
                    throw new ArgumentException("give --offset or --from-beginning, not both");
                }

                codec = new ProvenanceCodec(provenance.Keys(result));
                parts = schema.Parts(result, Warn, indented: false);
            }
            catch (ArgumentException e)
            {
                await error.WriteLineAsync("kafka-protobuf consume: " + e.Message).ConfigureAwait(false);
                return ExitCodes.Usage;
            }

            using (parts)
            {
                var run = new Run(output, error, new RecordJson(parts, result.GetValue(keyFormat)!, result.GetValue(schema.ExpectedType)), codec, result.GetValue(schema.Format) == "pretty");
                Offset start = result.GetValue(offset) is { } at ? new Offset(at) : result.GetValue(fromBeginning) ? Offset.Beginning : Offset.End;
                int exit = await run.ExecuteAsync(config, result.GetRequiredValue(topic), result.GetValue(partition), start, result.GetValue(max), result.GetValue(untilEnd), cancellationToken).ConfigureAwait(false);
                return exit == ExitCodes.Ok && run.BadRecords > 0 && result.GetValue(failOnError) ? ExitCodes.BadRecords : exit;
            }
        });
        return command;
    }

    private sealed class Run(TextWriter output, TextWriter error, RecordJson records, ProvenanceCodec provenance, bool indented)
    {
        public int BadRecords { get; private set; }

        public async Task<int> ExecuteAsync(ConsumerConfig config, string topic, int? onlyPartition, Offset start, int? max, bool untilEnd, CancellationToken cancellationToken)
        {
            Error? brokerError = null;
            using IConsumer<byte[], byte[]> consumer = new ConsumerBuilder<byte[], byte[]>(config)
                .SetErrorHandler((_, e) => brokerError ??= e.Code is ErrorCode.Local_AllBrokersDown or ErrorCode.Local_Authentication or ErrorCode.Local_Resolve ? e : null)
                .SetLogHandler((_, _) => { })
                .Build();

            List<int> partitions;
            try
            {
                using IAdminClient admin = new DependentAdminClientBuilder(consumer.Handle).Build();
                TopicMetadata metadata = admin.GetMetadata(topic, TimeSpan.FromSeconds(10)).Topics.Single();
                if (metadata.Error.IsError)
                {
                    await error.WriteLineAsync($"kafka-protobuf consume: topic '{topic}': {metadata.Error.Reason}").ConfigureAwait(false);
                    return ExitCodes.ConnectionFailure;
                }

                partitions = [.. metadata.Partitions.Select(p => p.PartitionId).Where(p => onlyPartition is null || p == onlyPartition).Order()];
                if (partitions.Count == 0)
                {
                    await error.WriteLineAsync($"kafka-protobuf consume: topic '{topic}' has no partition {onlyPartition}").ConfigureAwait(false);
                    return ExitCodes.Usage;
                }
            }
            catch (KafkaException e)
            {
                await error.WriteLineAsync($"kafka-protobuf consume: cannot reach {config.BootstrapServers}: {e.Error.Reason}").ConfigureAwait(false);
                return ExitCodes.ConnectionFailure;
            }

            var atEnd = new HashSet<int>();
            if (untilEnd)
            {
                // Partitions with nothing to read from the start position are already at their end.
                foreach (int p in partitions)
                {
                    WatermarkOffsets marks = consumer.QueryWatermarkOffsets(new TopicPartition(topic, p), TimeSpan.FromSeconds(10));
                    long from = start == Offset.Beginning ? marks.Low : start == Offset.End ? marks.High : start.Value;
                    if (from >= marks.High)
                    {
                        atEnd.Add(p);
                    }
                }
            }

            consumer.Assign(partitions.Select(p => new TopicPartitionOffset(topic, p, start)));
            // The line a script (or a test) can wait for: from here on, records are read and Ctrl+C stops cleanly.
            await error.WriteLineAsync(string.Create(CultureInfo.InvariantCulture, $"kafka-protobuf consume: reading {topic} [{string.Join(",", partitions)}] from {Describe(start)}; Ctrl+C stops")).ConfigureAwait(false);
            int shown = 0;
            try
            {
                while (!cancellationToken.IsCancellationRequested && (max is null || shown < max) && !(untilEnd && atEnd.Count == partitions.Count))
                {
                    if (brokerError is { } fatal)
                    {
                        await error.WriteLineAsync($"kafka-protobuf consume: {fatal.Reason}").ConfigureAwait(false);
                        return ExitCodes.ConnectionFailure;
                    }

                    ConsumeResult<byte[], byte[]>? record;
                    try
                    {
                        record = consumer.Consume(TimeSpan.FromMilliseconds(200));
                    }
                    catch (ConsumeException e) when (e.IsRecoverableConsumerError())
                    {
                        await error.WriteLineAsync("kafka-protobuf consume: " + e.Error.Reason).ConfigureAwait(false);
                        continue;
                    }

                    if (record is null)
                    {
                        continue;
                    }

                    if (record.IsPartitionEOF)
                    {
                        atEnd.Add(record.Partition.Value);
                        await error.WriteLineAsync(string.Create(CultureInfo.InvariantCulture, $"kafka-protobuf consume: reached the end of {record.Topic} [{record.Partition.Value}] at offset {record.Offset.Value}")).ConfigureAwait(false);
                        continue;
                    }

                    try
                    {
                        await WriteRecordAsync(record, cancellationToken).ConfigureAwait(false);
                    }
                    catch (Exception e) when (e is SchemaRegistryRequestException or SchemaUnavailableException or UnauthorizedAccessException)
                    {
                        await error.WriteLineAsync("kafka-protobuf consume: the schema registry failed: " + e.Message).ConfigureAwait(false);
                        return ExitCodes.ConnectionFailure;
                    }
                    catch (Exception e) when (e is not OperationCanceledException)
                    {
                        // Whatever else a record's bytes or its schema make fail, that record is shown as an error and the run goes on.
                        BadRecords++;
                        await WriteUnreadableAsync(record, e, cancellationToken).ConfigureAwait(false);
                    }

                    shown++;
                }
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                // Ctrl+C while a record was being decoded (a registry request) or written: it is not shown.
            }

            consumer.Close(); // leaves nothing behind: the group was never joined and nothing was stored
            return ExitCodes.Ok;
        }

        private static string Describe(Offset start) =>
            start == Offset.Beginning ? "the beginning" : start == Offset.End ? "the end (new records only)" : "offset " + start.Value.ToString(CultureInfo.InvariantCulture);

        private async Task WriteRecordAsync(ConsumeResult<byte[], byte[]> record, CancellationToken cancellationToken)
        {
            var buffer = new ArrayBufferWriter<byte>();
            bool bad;
            using (var writer = new Utf8JsonWriter(buffer, indented ? JsonFormat.Indented : JsonFormat.Compact))
            {
                JsonFormat.WriteStartObject(writer);
                bad = await records.WritePropertiesAsync(writer, provenance.Read(record), cancellationToken).ConfigureAwait(false);
                writer.WriteEndObject();
            }

            if (bad)
            {
                BadRecords++;
            }

            await WriteLineAsync(buffer, cancellationToken).ConfigureAwait(false);
        }

        /// <summary>A record the tool could not show: its place and why, as a JSON line of its own.</summary>
        private async Task WriteUnreadableAsync(ConsumeResult<byte[], byte[]> record, Exception e, CancellationToken cancellationToken)
        {
            var buffer = new ArrayBufferWriter<byte>();
            using (var writer = new Utf8JsonWriter(buffer, JsonFormat.Compact))
            {
                JsonFormat.WriteStartObject(writer);
                RecordJson.WritePosition(writer, record);
                writer.WriteStartObject("error");
                writer.WriteString("message", "the record could not be shown: " + BoundedText.Describe(e));
                writer.WriteEndObject();
                writer.WriteEndObject();
            }

            await WriteLineAsync(buffer, cancellationToken).ConfigureAwait(false);
        }

        /// <summary>One record's JSON as a line, its bidirectional controls escaped, flushed so that a pipe sees it at once.</summary>
        private async Task WriteLineAsync(ArrayBufferWriter<byte> json, CancellationToken cancellationToken)
        {
            await output.WriteLineAsync(TerminalText.EscapeBidi(Encoding.UTF8.GetString(json.WrittenSpan))).ConfigureAwait(false);
            await output.FlushAsync(cancellationToken).ConfigureAwait(false);
        }
    }
}
