using System;
using System.Collections.Generic;
using KafkaProtobuf.Hosting.Batching;
using Xunit;

namespace KafkaProtobuf.Tests.Hosting.Batching;

/// <summary>
/// The batch's copies of its records' bytes, kept for their dead letters: whatever the mix of null, empty, small and
/// large keys and values (the buffer growing past the pool's sizes), each comes back as it was added; a null stays null,
/// an empty one stays empty; after the buffer goes back, the object is reused from nothing.
/// </summary>
public sealed class CopiedBytesTests
{
    [Theory]
    [InlineData(1)]
    [InlineData(7)]
    [InlineData(2026)]
    public void EveryAddedBytes_ComesBackAsAdded_NullAndEmptyKeptApart_AcrossGrowthAndReuse(int seed)
    {
        var random = new Random(seed);
        var copies = new CopiedBytes();
        for (int round = 0; round < 3; round++)
        {
            var added = new List<byte[]?>();
            int total = 0;
            for (int i = 0; i < 300; i++)
            {
                byte[]? bytes = random.Next(10) switch
                {
                    0 => null,
                    1 => [],
                    2 => new byte[random.Next(5_000, 70_000)], // past the 1 KiB start and the pool's doubling
                    _ => new byte[random.Next(1, 200)],
                };
                if (bytes is not null)
                {
                    random.NextBytes(bytes);
                    total += bytes.Length;
                }

                copies.Add(bytes, bytes is null);
                added.Add(bytes);
            }

            Assert.Equal(total, copies.Length);
            for (int i = 0; i < added.Count; i++)
            {
                Assert.Equal(added[i], copies.ToArray(i));
                ReadOnlySpan<byte> span = copies.Span(i, out bool isNull);
                Assert.Equal(added[i] is null, isNull);
                Assert.Equal(added[i] ?? [], span.ToArray());
            }

            copies.ReleaseBytes();
            Assert.Equal(0, copies.Length);
        }
    }
}
