using System;
using System.Collections.Generic;
using System.Threading;
using Confluent.Kafka;

namespace KafkaProtobuf.Hosting.Scheduling;

/// <summary>
/// When the scheduler's partitions pause and resume, on the loop thread: for the read-ahead budget, one across all
/// lanes (<see cref="SchedulerSettings.MaxReadAheadBytes"/>: the lane that takes a record past it pauses, and every lane
/// so paused resumes once half of it is free), and for a delay before a record is read again.
/// </summary>
internal sealed class LanePausing
{
    private readonly IPartitionFetching _fetching;
    private readonly SchedulerSettings _settings;
    private readonly SchedulerClock _clock;
    private int _pausedLanes; // lanes paused for the budget or a delay (ResumeDue has nothing to do without one)
    private long _heldBytes; // what every lane's records count against the budget
    private long _mostHeldBytes;

    internal LanePausing(IPartitionFetching fetching, SchedulerSettings settings, SchedulerClock clock)
    {
        _fetching = fetching;
        _settings = settings;
        _clock = clock;
    }

    /// <summary>The most the lanes' records have counted at once against the read-ahead budget.</summary>
    internal long MostHeldBytes => Volatile.Read(ref _mostHeldBytes);

    /// <summary>A record joined the lane: it counts against the budget, and the lane pauses if the budget has run out.</summary>
    internal void Held(PartitionLane lane, ScheduledWork record)
    {
        lane.HeldBytes += record.HeldBytes;
        _heldBytes += record.HeldBytes;
        if (_heldBytes > _mostHeldBytes)
        {
            Volatile.Write(ref _mostHeldBytes, _heldBytes);
        }

        if (_heldBytes >= _settings.MaxReadAheadBytes && !lane.PausedForReadAhead)
        {
            // librdkafka drops what it fetched past the last record consumed, and resumes from there.
            Pause(lane);
            lane.PausedForReadAhead = true;
        }
    }

    /// <summary>A record left the lane (concluded, or dropped as the partition is read again): its memory is free.</summary>
    internal void Freed(PartitionLane lane, ScheduledWork record)
    {
        lane.HeldBytes -= record.HeldBytes;
        _heldBytes -= record.HeldBytes;
    }

    /// <summary>The lane is let go (its partition taken away): all it held is free, and its partition fetches again.</summary>
    internal void LetGo(PartitionLane lane)
    {
        _heldBytes -= lane.HeldBytes;
        lane.HeldBytes = 0;
        if (lane.Paused)
        {
            // librdkafka keeps an application's pause across a rebalance: a partition this member gets back would
            // stay paused with no lane left to resume it.
            _pausedLanes--;
            _fetching.Resume(lane.Partition, null);
        }
    }

    /// <summary>The partition pauses, and reads <paramref name="record"/> again after <paramref name="delay"/> (<see cref="SchedulerSettings.ReadAgainDelay"/> if null).</summary>
    internal void PauseFor(PartitionLane lane, TopicPartitionOffset record, TimeSpan? delay = null)
    {
        Pause(lane);
        lane.PausedUntil = _clock.Now + (delay ?? _settings.ReadAgainDelay);
        lane.ReadAgainFrom = record;
    }

    /// <summary>Resumes paused lanes whose delay, if any, is over, and, if the budget paused them, once half of it is free.</summary>
    internal void ResumeDue(IEnumerable<PartitionLane> lanes)
    {
        if (_pausedLanes == 0)
        {
            return;
        }

        TimeSpan now = _clock.Now;
        foreach (PartitionLane lane in lanes)
        {
            if (!lane.Paused || lane.PausedUntil > now || (lane.PausedForReadAhead && _heldBytes > _settings.MaxReadAheadBytes / 2))
            {
                continue;
            }

            TopicPartitionOffset? readAgain = lane.ReadAgainFrom;
            lane.PausedForReadAhead = false;
            lane.PausedUntil = null;
            lane.ReadAgainFrom = null;
            _pausedLanes--;
            _fetching.Resume(lane.Partition, readAgain);
        }
    }

    private void Pause(PartitionLane lane)
    {
        if (!lane.Paused)
        {
            _pausedLanes++;
        }

        _fetching.Pause(lane.Partition);
    }
}
