using System;
using System.Collections.Generic;
using Confluent.Kafka;
using KafkaProtobuf.Hosting.Scheduling;

namespace KafkaProtobuf.Hosting.Intake;

/// <summary>
/// How the scheduled loop turns what it consumed into what it offers the scheduler (records one by one, or batches),
/// and the scheduler's side of each: how it is handled, kept and concluded.
/// </summary>
/// <typeparam name="TKey">The records' key type.</typeparam>
/// <typeparam name="TValue">The records' value type.</typeparam>
/// <typeparam name="TRecord">What is scheduled.</typeparam>
internal interface IIntake<TKey, TValue, TRecord> : IRecordScheduling<TRecord>
    where TRecord : ScheduledWork
{
    /// <summary>How long the next consume may wait, at most <paramref name="longest"/>.</summary>
    TimeSpan Wait(TimeSpan longest);

    /// <summary>Offers what is due without a new record (a batch whose wait ran out). False: a conclusion stopped the consumer.</summary>
    bool OfferDue(PartitionScheduler<TRecord> scheduler);

    /// <summary>Offers, or collects, a good record. False: a conclusion stopped the consumer.</summary>
    bool OfferRecord(PartitionScheduler<TRecord> scheduler, ConsumeResult<TKey, TValue> record);

    /// <summary>Offers a poison record in its partition's order, after what was collected before it. False: a conclusion stopped the consumer.</summary>
    bool OfferPoison(PartitionScheduler<TRecord> scheduler, ConsumeException poison);

    /// <summary>A record is read again later: offers what was collected of its partition before it. False: a conclusion stopped the consumer.</summary>
    bool CutBefore(PartitionScheduler<TRecord> scheduler, TopicPartitionOffset record);

    /// <summary>Partitions taken away, after the scheduler let go of them: what is still being collected of them is dropped.</summary>
    void Revoked(IReadOnlyList<TopicPartition> partitions);

    /// <summary>The loop ended: what is still being collected is dropped (not handed over: not committed, read again).</summary>
    void Ended();
}
