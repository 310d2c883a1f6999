using System;
using System.Collections.Concurrent;
using Vectors.Telemetry.V1;
using Wolverine;
using Wolverine.Kafka;

namespace KafkaProtobuf.Wolverine.Tests.Support;

/// <summary>A user's handlers, one per generated type: each records what it was given. A <see cref="Reading"/> of a sensor told to fail (<see cref="Fail"/>) throws.</summary>
public static class TelemetryHandlers
{
    private static readonly ConcurrentDictionary<string, bool> FailingSensors = new();

    /// <summary>Readings of <paramref name="sensorId"/> throw (a handler failure, for the dead-letter tests) until <see cref="Heal"/>.</summary>
    public static void Fail(string sensorId) => FailingSensors[sensorId] = true;

    public static void Heal(string sensorId) => FailingSensors.TryRemove(sensorId, out _);

    /// <summary>How many times a failing sensor's reading was refused.</summary>
    public static int Refusals(string sensorId) => RefusedBySensor.TryGetValue(sensorId, out int count) ? count : 0;

    private static readonly ConcurrentDictionary<string, int> RefusedBySensor = new();

    public static void Handle(Reading reading, Envelope envelope)
    {
        if (FailingSensors.ContainsKey(reading.SensorId))
        {
            RefusedBySensor.AddOrUpdate(reading.SensorId, 1, (_, count) => count + 1);
            throw new InvalidOperationException("the handler refuses " + reading.SensorId);
        }

        Handled.Add(envelope, reading);
    }

    public static void Handle(Device device, Envelope envelope) => Handled.Add(envelope, device);

    public static void Handle(Device.Types.Location location, Envelope envelope) => Handled.Add(envelope, location);

    public static void Handle(Device.Types.Firmware firmware, Envelope envelope) => Handled.Add(envelope, firmware);

    public static void Handle(Device.Types.Firmware.Types.Signature signature, Envelope envelope) => Handled.Add(envelope, signature);

    public static void Handle(Alert alert, Envelope envelope) => Handled.Add(envelope, alert);

    /// <summary>The keys of the tombstones handled (Wolverine's own message for a record with no value).</summary>
    public static ConcurrentQueue<string> Tombstones { get; } = new();

    public static void Handle(KafkaTombstone tombstone) => Tombstones.Enqueue(tombstone.Key);
}
