using System;

// Compiled into each package that retries (linked source, not a shared internal API: packages of different versions
// may meet in one application). Each copy lives in its package's namespace, so a test that sees both can name either.
#if KAFKAPROTOBUF_SCHEMAREGISTRY
namespace KafkaProtobuf.SchemaRegistry;
#elif KAFKAPROTOBUF_WOLVERINE
namespace KafkaProtobuf.Wolverine.Decoding;
#else
namespace KafkaProtobuf.Hosting.Handling;
#endif

/// <summary>
/// Exponential back-off with jitter, for every retry in the packages (the registry client's requests, the hosted
/// consumer's handler attempts): attempt n waits between half and all of min(<c>max</c>, <c>initial</c> × 2^(n−1)).
/// The jitter keeps many clients that failed together from retrying together; the half kept keeps the delay from
/// collapsing to nothing.
/// </summary>
internal sealed class ExponentialBackoff
{
    private readonly double _initialMs;
    private readonly double _maxMs;
    private readonly Func<double> _jitter;

    /// <param name="initial">The delay's ceiling after the first failure.</param>
    /// <param name="max">The highest ceiling.</param>
    /// <param name="jitter">A source of numbers in [0, 1); default a shared random source. Tests pin it.</param>
    public ExponentialBackoff(TimeSpan initial, TimeSpan max, Func<double>? jitter = null)
    {
        _initialMs = initial.TotalMilliseconds;
        _maxMs = max.TotalMilliseconds;
        _jitter = jitter ?? SharedJitter;
    }

    /// <summary>The delay after failed attempt <paramref name="attempt"/> (1 for the first).</summary>
    public TimeSpan Delay(int attempt)
    {
        double ceiling = Math.Min(_maxMs, _initialMs * Math.Pow(2, Math.Min(Math.Max(attempt, 1) - 1, 30)));
        return TimeSpan.FromMilliseconds(ceiling * (0.5 + (_jitter() / 2)));
    }

#if NET6_0_OR_GREATER
    private static double SharedJitter() => Random.Shared.NextDouble();
#else
    private static readonly Random Random = new();

    private static double SharedJitter()
    {
        lock (Random)
        {
            return Random.NextDouble();
        }
    }
#endif
}
