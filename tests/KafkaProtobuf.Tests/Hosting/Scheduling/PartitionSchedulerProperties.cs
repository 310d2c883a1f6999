using System.Collections.Generic;
using System.Linq;
using Confluent.Kafka;
using CsCheck;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Scheduling;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting.Scheduling;

/// <summary>
/// The scheduler under random interleavings: a fake consumer delivers records from unpaused partitions (seeking where
/// the scheduler says), handlers complete in random order with random failures, poison records and dead letters that
/// fail once come at random places, time moves at random. Whatever happens, <see cref="SchedulerHarness"/> holds every
/// conclusion to its partition's order (no offset past an unfinished record, none skipped), never two records of a key
/// in handlers at once, no record handled twice in one reading; and in the end every record of every partition is concluded.
/// </summary>
public sealed class PartitionSchedulerProperties
{
    private static readonly Gen<Scenario> Scenarios = Gen.Select(
        Gen.Int[1, 3], Gen.Int[1, 12], Gen.Int[1, 3], Gen.Bool, Gen.Int[1, 4], Gen.Int[2, 8], Gen.Int[0, 1_000_000].Array[20, 300])
        .Select((partitions, perPartition, keys, perKey, slots, queued, choices) => new Scenario(partitions, perPartition, keys, perKey, slots, queued, choices));

    [Fact]
    public void EveryRecordIsConcludedInItsPartitionsOrder_WhateverOrderHandlersFinishIn() =>
        Scenarios.Sample(scenario => scenario.Run(), iter: 500);

    /// <summary>One random run; its fate (poison, failing handler, dead letter failing once) is a function of each record's place.</summary>
    public sealed record Scenario(int Partitions, int PerPartition, int Keys, bool PerKey, int Slots, int Queued, int[] Choices)
    {
        public void Run()
        {
            var harness = new SchedulerHarness(Slots, PerKey, Queued);
            long[] position = new long[Partitions]; // the fake consumer's next offset to deliver, per partition
            harness.ReadAgainFrom = (partition, offset) => position[partition] = offset ?? position[partition];
            var deadLettersFailed = new HashSet<(int, long)>();
            harness.Conclusion = record =>
                record.NeedsLoop && Fate(record) % 7 == 0 && deadLettersFailed.Add((record.Partition.Value, record.Offset.Value)) ? AfterConclusion.ReadAgain : AfterConclusion.Continue;

            int step = 0;
            int Next() => Choices[step++ % Choices.Length];
            for (int i = 0; i < Choices.Length; i++)
            {
                switch (Next() % 5)
                {
                    case 0 or 1:
                        Deliver(harness, position, Next());
                        break;
                    case 2 when harness.InHandlers.Count > 0:
                        TestRecord record = harness.InHandlers.OrderBy(r => (r.Partition.Value, r.Offset.Value)).ElementAt(Next() % harness.InHandlers.Count);
                        harness.Complete(record, Fate(record) % 5 == 0 ? HandlerOutcome.DeadLetter : HandlerOutcome.Handled, conclude: Next() % 2 == 0);
                        break;
                    case 3:
                        Assert.True(harness.ConcludeHandedBack());
                        break;
                    default:
                        harness.Clock.Time += harness.Settings.ReadAgainDelay * (Next() % 2);
                        harness.Pausing.ResumeDue();
                        break;
                }
            }

            // Then let everything finish: deliver what is left, complete every handler, conclude, let delays pass.
            for (int round = 0; round < 10_000 && Enumerable.Range(0, Partitions).Any(p => harness.NextToConclude(p) < PerPartition); round++)
            {
                Deliver(harness, position, round);
                foreach (TestRecord record in harness.InHandlers.OrderBy(r => (r.Partition.Value, r.Offset.Value)).ToList())
                {
                    harness.Complete(record, Fate(record) % 5 == 0 ? HandlerOutcome.DeadLetter : HandlerOutcome.Handled);
                }

                Assert.True(harness.ConcludeHandedBack());
                harness.Clock.Time += harness.Settings.ReadAgainDelay;
                harness.Pausing.ResumeDue();
            }

            harness.AssertNoRuleBroken();
            Assert.All(Enumerable.Range(0, Partitions), p => Assert.Equal(PerPartition, harness.NextToConclude(p)));
            Assert.Empty(harness.InHandlers);
        }

        public override string ToString() =>
            $"{Partitions} partitions x {PerPartition}, {Keys} keys, {(PerKey ? "per key" : "per partition")}, {Slots} slots, read-ahead {Queued} records, choices [{string.Join(",", Choices.Take(40))}...]";

        /// <summary>Delivers the next record of an unpaused partition that has one, as Consume would.</summary>
        private void Deliver(SchedulerHarness harness, long[] position, int choice)
        {
            int[] ready = Enumerable.Range(0, Partitions).Where(p => !harness.Paused.Contains(p) && position[p] < PerPartition).ToArray();
            if (ready.Length == 0)
            {
                return;
            }

            int partition = ready[choice % ready.Length];
            long offset = position[partition]++;
            int fate = Fate(partition, offset);
            if (fate % 11 == 0 && !harness.Resumed.Any(r => r.Partition == partition && r.ReadAgainFrom == offset))
            {
                // Its writer's schema is unavailable (once): the partition waits, then reads it again.
                harness.Scheduler.ReadAgainLater(new TopicPartitionOffset(SchedulerHarness.Topic, partition, offset), PartitionPauses.SchemaUnavailable);
                return;
            }

            Assert.True(harness.Offer(new TestRecord(partition, offset, "k" + (fate % Keys), poison: fate % 6 == 0)));
        }

        private int Fate(TestRecord record) => Fate(record.Partition.Value, record.Offset.Value);

        private int Fate(int partition, long offset) => Choices[(int)(((partition * 31) + offset) % Choices.Length)] / 3;
    }
}
