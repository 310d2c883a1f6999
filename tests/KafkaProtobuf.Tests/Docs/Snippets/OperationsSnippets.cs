using System;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.Decoding;
using KafkaProtobuf.Lag;
using KafkaProtobuf.Redrive;
using KafkaProtobuf.SchemaRegistry;

namespace KafkaProtobuf.Tests.Docs.Snippets;

/// <summary>The operations core as docs/operations.md shows it: decode, list by windows, plan then redrive. Compiled, not run.</summary>
internal static class OperationsSnippets
{
    internal static async Task Decode(RegistryClient registry, ConsumeResult<byte[], byte[]> record, CancellationToken cancellationToken)
    {
        #region operations-decode
        var decoder = new WriterSchemaDecoder(new WriterSchemaDecoderOptions { Indented = true, WriterSchemas = { Source = registry } });
        DecodedPart value = await decoder.DecodeAsync(
            record.Message.Value, new SerializationContext(MessageComponentType.Value, record.Topic, record.Message.Headers), cancellationToken);
        Console.WriteLine(value.IsBad
            ? $"{value.Error!.Value.Code}: {value.ErrorMessage}"          // bad data: the library's code and offset
            : $"{value.WriterType?.FullName} {value.Json}");              // e.g. shop.v1.OrderPlaced { "orderId": "o-1", ... }
        #endregion
    }

    internal static async Task List(CancellationToken cancellationToken)
    {
        #region operations-window
        using var reader = new DeadLetterTopicReader(new ClientConfig { BootstrapServers = "localhost:9092" });
        DeadLetterWindow? window = await reader.ReadWindowAsync("orders.dlq", before: null, maxRecords: 50, cancellationToken);
        foreach (DeadLetterGroup group in window?.Groups ?? [])
        {
            Console.WriteLine($"{group.DeadLetters.Count} x {group.ErrorCode} ({group.Component}): {group.Pattern}, e.g. {group.Example}");
            foreach (DeadLetter letter in group.DeadLetters)
            {
                Console.WriteLine($"  {letter.Record.TopicPartitionOffset} from {letter.DescribeSource()}"); // "orders [3] @41", or why not known
            }
        }

        string? older = window?.Older?.ToString(); // "0:1200,1:877": DeadLetterCursor.TryParse reads it back for the next window
        #endregion
        GC.KeepAlive(older);
    }

    internal static async Task Plan(CancellationToken cancellationToken)
    {
        #region operations-plan
        var kafka = new ClientConfig { BootstrapServers = "localhost:9092" };
        RedrivePlan plan = await DeadLetterRedrive.PlanAsync(
            kafka, new RedriveOptions { DeadLetterTopic = "orders.dlq", ErrorCode = "System.TimeoutException" }, cancellationToken);
        Console.WriteLine(plan.DryRun); // dry run: would write 3, skipped by filter 1, skipped for loops 0, ...
        foreach (RedrivePlanEntry entry in plan.DeadLetters)
        {
            Console.WriteLine($"{entry.Position} -> {entry.DescribeSource()}: {RedriveOutcomes.Describe(entry.Outcome, dryRun: true)}");
        }

        if (plan.Refusal != RedriveRefusal.None)
        {
            Console.WriteLine(RedriveOutcomes.Describe(plan.Refusal)); // e.g. "This plan is running."
            return;
        }

        RedriveSummary done = await plan.RunAsync(cancellationToken); // exactly what the dry run showed, once
        Console.WriteLine($"{plan.State}: {done}");                     // Completed: written 3, ...
        #endregion
    }

    internal static async Task Lag(CancellationToken cancellationToken)
    {
        #region operations-lag
        ConsumerGroupLag lag = await ConsumerGroupLag.MeasureAsync(
            new ClientConfig { BootstrapServers = "localhost:9092" }, "orders-service", [], cancellationToken);
        Console.Write(lag.ToTable()); // TOPIC PARTITION COMMITTED END LAG OWNER ... total lag 42 over 6 partitions
        Console.WriteLine(lag.NothingCommittedWarning ?? $"{lag.TotalLag} behind");
        #endregion
    }

    internal static async Task History(RegistryClient registry, ProtoSchema next, CancellationToken cancellationToken)
    {
        #region operations-subject-history
        SubjectHistory history = await SubjectHistory.ReadAsync(registry, "orders-value", cancellationToken);
        CompatibilityVerdict verdict = ProtobufCompatibility.Check(next, history.Versions, history.Level);
        Console.WriteLine(verdict.IsCompatible ? "compatible" : $"{verdict.Incompatibilities.Count} incompatible difference(s)");
        #endregion
    }
}
