using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Diagnostics;
using KafkaProtobuf.Hosting;
using Shop.V1;

namespace KafkaProtobuf.Sample;

/// <summary>
/// What the sample's consumer saw: records by type and revenue (from its handler), dead letters and error codes (from the
/// package's metrics, as a dashboard would read them). Done when every produced record was handled or dead-lettered.
/// </summary>
internal sealed class Tally : IDisposable
{
    private readonly int _expected;
    private readonly MeterListener _listener = new();
    private readonly SortedDictionary<string, int> _counts = new(StringComparer.Ordinal);
    private readonly SortedDictionary<string, int> _errors = new(StringComparer.Ordinal);
    private readonly TaskCompletionSource<bool> _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly object _lock = new();
    private Stopwatch? _clock;
    private int _handled;
    private int _deadLettered;
    private long _bytes;
    private long _revenueCents;

    public Tally(int expected)
    {
        _expected = expected;
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == KafkaProtobufMetrics.MeterName
                && instrument.Name is KafkaProtobufMetrics.RecordsFailed or KafkaProtobufConsumerMetrics.RecordsDeadLettered)
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<long>(OnMeasurement);
        _listener.Start();
    }

    /// <summary>Completes when every produced record was handled or dead-lettered.</summary>
    public Task AllDone => _done.Task;

    public int Handled => Volatile.Read(ref _handled);

    public int DeadLettered => Volatile.Read(ref _deadLettered);

    public TimeSpan Elapsed => _clock?.Elapsed ?? TimeSpan.Zero;

    /// <summary>Called by the handler with each record it was given.</summary>
    public void Add(ConsumeResult<OrderKey, IMessage> record)
    {
        lock (_lock)
        {
            _clock ??= Stopwatch.StartNew();
            _bytes += record.Message.Value?.CalculateSize() ?? 0;
            switch (record.Message.Value)
            {
                case OrderPlaced placed:
                    _revenueCents += placed.Lines.Sum(line => line.Quantity * line.UnitPriceCents);
                    Count(_counts, "orders placed");
                    break;
                case OrderShipped:
                    Count(_counts, "orders shipped");
                    break;
                case OrderCancelled:
                    Count(_counts, "orders cancelled");
                    break;
                case null:
                    Count(_counts, "tombstones");
                    break;
            }
        }

        Interlocked.Increment(ref _handled);
        CheckDone();
    }

    public string Summary()
    {
        lock (_lock)
        {
            double seconds = Elapsed.TotalSeconds;
            int consumed = Handled + DeadLettered;
            return $"Consumed {consumed:N0} of {_expected:N0} records in {seconds:0.00} s ({consumed / Math.Max(seconds, 1e-9):N0} records/s, {_bytes / 1024.0:N0} KB of Protobuf payload)."
                + Environment.NewLine + "  " + string.Join(", ", _counts.Select(c => $"{c.Value:N0} {c.Key}")) + $"; revenue {_revenueCents / 100.0:N2}"
                + Environment.NewLine + "  errors by code: " + (_errors.Count == 0 ? "none" : string.Join(", ", _errors.Select(e => $"{e.Key} x{e.Value}")));
        }
    }

    public void Dispose() => _listener.Dispose();

    private void OnMeasurement(Instrument instrument, long value, ReadOnlySpan<KeyValuePair<string, object?>> tags, object? state)
    {
        if (instrument.Name == KafkaProtobufConsumerMetrics.RecordsDeadLettered)
        {
            Interlocked.Add(ref _deadLettered, (int)value);
            CheckDone();
            return;
        }

        foreach (KeyValuePair<string, object?> tag in tags)
        {
            if (tag.Key == KafkaProtobufMetrics.ErrorCodeTag && tag.Value is string code)
            {
                lock (_lock)
                {
                    Count(_errors, code);
                }
            }
        }
    }

    private void CheckDone()
    {
        if (Handled + DeadLettered >= _expected)
        {
            _done.TrySetResult(true);
        }
    }

    private static void Count(SortedDictionary<string, int> counts, string what) => counts[what] = counts.GetValueOrDefault(what) + 1;
}
