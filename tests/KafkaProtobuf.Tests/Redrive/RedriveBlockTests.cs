using System;
using System.Linq;
using System.Text;
using Confluent.Kafka;
using KafkaProtobuf.DeadLetters;
using KafkaProtobuf.Redrive;
using Xunit;
using static KafkaProtobuf.Tests.DeadLetters.ProvenanceRecords;

namespace KafkaProtobuf.Tests.Redrive;

/// <summary>The block a redrive writes back with a record (the codec's own, internal writer): counted when it verifies, never when it does not.</summary>
public sealed class RedriveBlockTests
{
    [Fact]
    public void ASignedRedrive_IsCounted_AndAForgedSignatureOnARedriveIsNot()
    {
        var codec = new ProvenanceCodec(Keys);
        DeadLetter first = DeadLetterOf(Produced("orders", 0, 7, new Headers { { "tenant", Encoding.UTF8.GetBytes("acme") } }), Keys, null, Keys);
        Message<byte[], byte[]> redriven = codec.ToRedriven(first, "run-1", DateTimeOffset.UnixEpoch);

        DeadLetter again = DeadLetterOf(Consumed("orders", 2, 30, redriven), Keys, null, Keys);
        Assert.Equal(1, again.RedriveCount);
        Assert.Equal(["tenant"], again.OriginalHeaders.Select(h => h.Key));

        // The same redrive written by someone without the key (another key): not believed, the count starts again.
        Message<byte[], byte[]> foreign = new ProvenanceCodec(OtherKeys).ToRedriven(first, "run-1", DateTimeOffset.UnixEpoch);
        DeadLetter counted = DeadLetterOf(Consumed("orders", 2, 31, foreign), Keys, null, Keys);
        Assert.Equal(0, counted.RedriveCount);
        Assert.Equal(("orders", (int?)2, (long?)31), SourceOf(counted));
    }

}
