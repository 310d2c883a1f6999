using System;
using System.Linq;
using System.Threading;
using Confluent.Kafka;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Hosting.Consuming;
using KafkaProtobuf.Hosting.Handling;
using KafkaProtobuf.Hosting.Scheduling;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting.Scheduling;

/// <summary>
/// The partition-parallel scheduler alone: no cluster, no thread but the test's, no time but the test's. Each test
/// pins one edge of its rules; <see cref="SchedulerHarness"/> checks on every conclusion that no offset passes an
/// unfinished record and on every handler that no key runs twice at once or a record twice in one reading.
/// </summary>
public sealed class PartitionSchedulerTests
{
    private static TestRecord R(int partition, long offset, string key = "k") => new(partition, offset, key);

    [Fact]
    public void AHandlerThatCompletesAtOnce_IsConcludedAtOnce_AndTheRecordIsNotKept()
    {
        var harness = new SchedulerHarness { CompleteAtOnce = true };
        TestRecord first = R(0, 0);

        Assert.True(harness.Offer(first, out bool kept));

        Assert.False(kept);
        Assert.Equal([first], harness.Concluded);
        Assert.Empty(harness.Retained);
        Assert.False(harness.Scheduler.Busy);
    }

    [Fact]
    public void OnePartitionsRecords_RunOneAtATime_InOrder()
    {
        var harness = new SchedulerHarness(maxConcurrent: 4);
        TestRecord[] records = [R(0, 0, "a"), R(0, 1, "b"), R(0, 2, "c")];
        harness.OfferAll(records);

        Assert.Equal([records[0]], harness.InHandlers);
        harness.Complete(records[0]);
        Assert.Equal([records[1]], harness.InHandlers);
        harness.Complete(records[1]);
        harness.Complete(records[2]);
        Assert.Equal(records, harness.Concluded);
    }

    [Fact]
    public void PartitionsRunAtOnce_UpToTheSlots_AndTheNextStartsWhenOneEnds()
    {
        var harness = new SchedulerHarness(maxConcurrent: 2);
        TestRecord[] records = [R(0, 0), R(1, 0), R(2, 0)];
        harness.OfferAll(records);

        Assert.Equal(2, harness.InHandlers.Count);
        Assert.False(harness.IsRunning(records[2]));
        harness.Complete(records[1]);
        Assert.True(harness.IsRunning(records[2]));
        Assert.Equal([records[1]], harness.Concluded);
    }

    [Fact]
    public void ALaterRecordFinishingFirst_WaitsForTheEarlierOne_BeforeItIsConcluded()
    {
        var harness = new SchedulerHarness(maxConcurrent: 2, perKey: true);
        TestRecord early = R(0, 0, "a");
        TestRecord late = R(0, 1, "b");
        harness.OfferAll(early, late);
        Assert.True(harness.IsRunning(early) && harness.IsRunning(late)); // different keys: at once

        harness.Complete(late);
        Assert.Empty(harness.Concluded); // its offset would pass the unfinished record 0

        harness.Complete(early);
        Assert.Equal([early, late], harness.Concluded);
    }

    [Fact]
    public void PerKey_EqualKeysWaitForEachOther_OtherKeysDoNot()
    {
        var harness = new SchedulerHarness(maxConcurrent: 3, perKey: true);
        TestRecord a0 = R(0, 0, "a");
        TestRecord a1 = R(0, 1, "a");
        TestRecord b2 = R(0, 2, "b");
        harness.OfferAll(a0, a1, b2);

        Assert.True(harness.IsRunning(a0));
        Assert.False(harness.IsRunning(a1));
        Assert.True(harness.IsRunning(b2));
        harness.Complete(a0);
        Assert.True(harness.IsRunning(a1));
    }

    [Fact]
    public void AFailedRecord_HoldsItsKey_UntilTheLoopHasDeadLetteredIt()
    {
        var harness = new SchedulerHarness(maxConcurrent: 2, perKey: true);
        TestRecord failing = R(0, 0, "a");
        TestRecord sameKey = R(0, 1, "a");
        harness.OfferAll(failing, sameKey);

        harness.Complete(failing, HandlerOutcome.DeadLetter, conclude: false);
        Assert.False(harness.IsRunning(sameKey)); // the loop has not decided: it could move the partition back to record 0

        Assert.True(harness.ConcludeHandedBack());
        Assert.Equal([failing], harness.Concluded);
        Assert.True(harness.IsRunning(sameKey));
    }

    [Fact]
    public void APoisonRecord_NeverReachesAHandler_AndIsConcludedInItsTurn()
    {
        var harness = new SchedulerHarness(maxConcurrent: 2);
        TestRecord before = R(0, 0);
        var poison = new TestRecord(0, 1, "k", poison: true);
        TestRecord after = R(0, 2);
        harness.OfferAll(before, poison, after);

        Assert.Equal([before], harness.InHandlers);
        harness.Complete(before);
        Assert.Equal([before, poison], harness.Concluded);
        harness.Complete(after);
        Assert.Equal([before, poison, after], harness.Concluded);
        Assert.DoesNotContain(poison, harness.Started);
    }

    [Fact]
    public void AFailedDeadLetter_MovesThePartitionBack_DropsWhatCameAfter_AndReadsItAgainAfterTheDelay()
    {
        var harness = new SchedulerHarness(maxConcurrent: 3, perKey: true);
        TestRecord failing = R(0, 0, "a");
        TestRecord inHandler = R(0, 1, "b");
        TestRecord finished = R(0, 2, "c");
        TestRecord waiting = R(0, 3, "a");
        harness.OfferAll(failing, inHandler, finished, waiting);
        harness.Complete(finished);
        harness.Conclusion = r => r == failing ? AfterConclusion.ReadAgain : AfterConclusion.Continue;

        harness.Complete(failing, HandlerOutcome.DeadLetter);

        Assert.Equal([failing], harness.Concluded);
        Assert.Contains(finished, harness.Dropped);
        Assert.Contains(0, harness.Paused);
        Assert.False(harness.IsRunning(waiting)); // forgotten: it is read again
        harness.Complete(inHandler); // came back from the old reading: dropped, not concluded
        Assert.Contains(inHandler, harness.Dropped);
        Assert.Equal([failing], harness.Concluded);

        harness.Pausing.ResumeDue();
        Assert.Empty(harness.Resumed); // the delay is not over
        harness.Clock.Time += harness.Settings.ReadAgainDelay;
        harness.Pausing.ResumeDue();
        Assert.Equal([(0, (long?)0)], harness.Resumed);

        harness.Conclusion = _ => AfterConclusion.Continue;
        TestRecord[] again = [R(0, 0, "a"), R(0, 1, "b"), R(0, 2, "c"), R(0, 3, "a")];
        harness.OfferAll(again);
        foreach (TestRecord record in again)
        {
            harness.Complete(record);
        }

        Assert.Equal(again.Select(r => r.Offset.Value), harness.Concluded.Skip(1).Select(r => r.Offset.Value));
    }

    [Fact]
    public void ARecordReadAgainWhileTheOldReadingOfItsKeyIsStillInAHandler_WaitsForIt()
    {
        var harness = new SchedulerHarness(maxConcurrent: 3, perKey: true);
        TestRecord failing = R(0, 0, "a");
        TestRecord old = R(0, 1, "b");
        harness.OfferAll(failing, old);
        harness.Conclusion = r => r == failing ? AfterConclusion.ReadAgain : AfterConclusion.Continue;
        harness.Complete(failing, HandlerOutcome.DeadLetter);
        harness.Clock.Time += harness.Settings.ReadAgainDelay;
        harness.Pausing.ResumeDue();
        harness.Conclusion = _ => AfterConclusion.Continue;

        TestRecord again = R(0, 0, "a");
        TestRecord oldAgain = R(0, 1, "b");
        harness.OfferAll(again, oldAgain);

        Assert.False(harness.IsRunning(oldAgain)); // key b's sequence still runs the old reading's record
        harness.Complete(old);
        Assert.True(harness.IsRunning(oldAgain));
    }

    [Fact]
    public void AnUnavailableSchema_PausesThePartition_KeepsWhatCameBefore_AndReadsTheRecordAgainAfterTheDelay()
    {
        var harness = new SchedulerHarness(maxConcurrent: 2);
        TestRecord before = R(0, 0);
        harness.OfferAll(before);

        harness.Scheduler.ReadAgainLater(new TopicPartitionOffset(SchedulerHarness.Topic, 0, 1), PartitionPauses.SchemaUnavailable);
        Assert.Contains(0, harness.Paused);
        harness.Complete(before);
        Assert.Equal([before], harness.Concluded);

        harness.Clock.Time += harness.Settings.ReadAgainDelay;
        harness.Pausing.ResumeDue();
        Assert.Equal([(0, (long?)1)], harness.Resumed);
    }

    [Fact]
    public void TheReadAheadBudget_PausesThePartitionThatTookItsLastRecord_UntilHalfOfItIsConcluded()
    {
        var harness = new SchedulerHarness(maxConcurrent: 2, readAhead: 4);
        TestRecord[] records = Enumerable.Range(0, 4).Select(o => R(0, o)).ToArray();
        harness.OfferAll(records);
        Assert.Contains(0, harness.Paused);
        Assert.Equal(4, harness.MostReadAhead);

        harness.Complete(records[0]);
        harness.Pausing.ResumeDue();
        Assert.Contains(0, harness.Paused); // 3 left: more than half of 4

        harness.Complete(records[1]);
        harness.Pausing.ResumeDue();
        Assert.Equal([(0, (long?)null)], harness.Resumed);
    }

    [Fact]
    public void TheReadAheadBudget_IsOneForAllPartitions_AndResumesEveryPartitionItPaused()
    {
        var harness = new SchedulerHarness(maxConcurrent: 1, readAhead: 4);
        TestRecord first = R(0, 0);
        TestRecord second = R(1, 0);
        harness.OfferAll(first, R(0, 1), second);
        Assert.Empty(harness.Paused); // 3 of 4, no partition holding more than 2

        harness.OfferAll(R(1, 1), R(2, 0));
        Assert.Equal([1, 2], harness.Paused.Order()); // each took a record past the budget
        Assert.Equal(5, harness.MostReadAhead);

        harness.Complete(first); // one slot: partition 1's first record runs next
        harness.Complete(second);
        harness.Pausing.ResumeDue();
        Assert.Equal([1, 2], harness.Paused.Order()); // 3 left: more than half of 4

        harness.Complete(harness.InHandlers.Single());
        harness.Pausing.ResumeDue();
        Assert.Empty(harness.Paused);
        Assert.Equal([(1, (long?)null), (2, (long?)null)], harness.Resumed.Order());
    }

    [Fact]
    public void ARevokedPartition_WaitsForItsHandlers_AndConcludesWhatFinishes()
    {
        var harness = new SchedulerHarness(maxConcurrent: 2);
        TestRecord running = R(0, 0);
        TestRecord waiting = R(0, 1);
        TestRecord other = R(1, 0);
        harness.OfferAll(running, waiting, other);
        harness.Clock.DuringNextWait(() => harness.Complete(running, conclude: false));

        Assert.True(harness.Revoke(new TopicPartition(SchedulerHarness.Topic, 0)));
        harness.AssertNoRuleBroken();

        Assert.Equal([running], harness.Concluded); // stored before the partition goes
        Assert.False(harness.IsRunning(waiting)); // not started: its new owner reads it
        Assert.True(harness.IsRunning(other)); // other partitions go on
        Assert.Equal(1, harness.Clock.Waits);
    }

    [Fact]
    public void ARevokedPartitionsHandler_StillRunningAfterRevokeTimeout_IsDropped_AndItsPartitionResumed()
    {
        var harness = new SchedulerHarness(maxConcurrent: 2, readAhead: 2, revokeTimeout: TimeSpan.FromSeconds(5));
        TestRecord slow = R(0, 0);
        TestRecord second = R(0, 1);
        harness.OfferAll(slow, second);
        Assert.Contains(0, harness.Paused); // full

        Assert.True(harness.Revoke(new TopicPartition(SchedulerHarness.Topic, 0)));
        harness.AssertNoRuleBroken();

        Assert.Empty(harness.Concluded);
        Assert.Equal([(0, (long?)null)], harness.Resumed); // librdkafka would keep the pause across the rebalance
        harness.Complete(slow); // after the partition went
        Assert.Empty(harness.Concluded);
        Assert.Contains(slow, harness.Dropped);

        harness.NewReading(0, 0); // given back later: a new lane, read from the committed offset
        TestRecord again = R(0, 0);
        harness.OfferAll(again);
        Assert.True(harness.IsRunning(again));
    }

    [Fact]
    public void Shutdown_StartsNothingMore_LetsRunningHandlersFinish_AndConcludesThem()
    {
        var harness = new SchedulerHarness(maxConcurrent: 2);
        TestRecord running = R(0, 0);
        TestRecord waiting = R(0, 1);
        TestRecord other = R(1, 0);
        harness.OfferAll(running, waiting, other);
        harness.Clock.DuringNextWait(() => harness.Complete(running, conclude: false));
        harness.Clock.DuringNextWait(() => harness.Complete(other, conclude: false));

        harness.Scheduler.Drain(CancellationToken.None);
        harness.AssertNoRuleBroken();

        Assert.Equal([running, other], harness.Concluded);
        Assert.DoesNotContain(waiting, harness.Started);
        Assert.False(harness.Scheduler.Busy);
    }

    [Fact]
    public void Shutdown_DoesNotStartARecordThatWaitedForASlot()
    {
        var harness = new SchedulerHarness(maxConcurrent: 1);
        TestRecord running = R(0, 0);
        TestRecord waitingForASlot = R(1, 0);
        harness.OfferAll(running, waitingForASlot);
        harness.Clock.DuringNextWait(() => harness.Complete(running, conclude: false)); // its worker is free, and finds the other partition ready

        harness.Scheduler.Drain(CancellationToken.None);
        harness.AssertNoRuleBroken();

        Assert.Equal([running], harness.Concluded);
        Assert.DoesNotContain(waitingForASlot, harness.Started);
    }

    [Fact]
    public void OnceShutdownBegins_AWorkerWhoseHandlerIsDone_StartsNoOtherRecord_EvenBeforeTheDrain()
    {
        var harness = new SchedulerHarness(maxConcurrent: 1);
        TestRecord running = R(0, 0);
        TestRecord next = R(0, 1);
        TestRecord otherPartition = R(1, 0);
        harness.OfferAll(running, next, otherPartition);

        harness.Stopping.Cancel(); // the loop has not reached Drain yet
        harness.Complete(running);
        harness.AssertNoRuleBroken();

        Assert.Equal([running], harness.Started);
        Assert.Equal([running], harness.Concluded);
        Assert.False(harness.Scheduler.Busy);
    }

    [Fact]
    public void AHandlerCancelledAtShutdown_IsNotConcluded_NorAnythingAfterIt()
    {
        var harness = new SchedulerHarness(maxConcurrent: 2, perKey: true);
        TestRecord cancelled = R(0, 0, "a");
        TestRecord later = R(0, 1, "b");
        harness.OfferAll(cancelled, later);
        harness.Complete(later);
        harness.Clock.DuringNextWait(() => harness.Complete(cancelled, HandlerOutcome.Cancelled, conclude: false));

        harness.Scheduler.Drain(CancellationToken.None);
        harness.AssertNoRuleBroken();

        Assert.Empty(harness.Concluded);
    }

    [Fact]
    public void AConclusionThatFails_StopsTheScheduler_WithItsFailure()
    {
        var failure = new ConsumerFailure("the handler failed and the policy is to stop", null);
        var harness = new SchedulerHarness(maxConcurrent: 2) { Conclusion = _ => AfterConclusion.Fail(failure) };
        TestRecord record = R(0, 0);
        harness.OfferAll(record);

        harness.Complete(record, HandlerOutcome.Stop, conclude: false);

        Assert.False(harness.ConcludeHandedBack());
        Assert.Same(failure, harness.Scheduler.Failure);
    }

    [Fact]
    public void AConclusionAtShutdown_StopsTheScheduler_WithoutAFailure()
    {
        var harness = new SchedulerHarness(maxConcurrent: 2) { Conclusion = _ => AfterConclusion.ShutDown };
        TestRecord record = R(0, 0);
        harness.OfferAll(record);

        harness.Complete(record, HandlerOutcome.Handled, conclude: false);

        Assert.False(harness.ConcludeHandedBack());
        Assert.Null(harness.Scheduler.Failure);
    }
}
