using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using Google.Protobuf;
using KafkaProtobuf.Hosting;
using Shop.V1;

namespace KafkaProtobuf.Sample;

/// <summary>The sample's handler: resolved in a new scope per record; its record's offset is stored once it returns.</summary>
internal sealed class OrderHandler(Tally tally) : IRecordHandler<OrderKey, IMessage>
{
    public Task HandleAsync(ConsumeResult<OrderKey, IMessage> record, CancellationToken cancellationToken)
    {
        tally.Add(record); // a real service would write to its store here, with the token
        return Task.CompletedTask;
    }
}
