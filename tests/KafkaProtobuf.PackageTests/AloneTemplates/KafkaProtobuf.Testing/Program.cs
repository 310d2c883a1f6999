// A project whose one reference is the KafkaProtobuf.Testing package: the embedded cluster starts, carries a record
// through a fetch failure injected with the mock functions of librdkafka 2.15 the package binds, and the in-process
// registry answers.
using Confluent.Kafka;
using KafkaProtobuf.Testing;

using var cluster = EmbeddedKafkaCluster.Start();
cluster.CreateTopic("alone", 1);
cluster.SetConsumerGroupSession(TimeSpan.FromSeconds(6), TimeSpan.FromSeconds(1));
cluster.FailNextPartitionRequests("alone", 0, KafkaApi.Fetch, ErrorCode.NotLeaderForPartition, 1);
using (IProducer<Null, string> producer = new ProducerBuilder<Null, string>(cluster.CreateProducerConfig()).Build())
{
    await producer.ProduceAsync("alone", new Message<Null, string> { Value = "carried" }).WaitAsync(TimeSpan.FromSeconds(60));
}

using IConsumer<Ignore, string> consumer = new ConsumerBuilder<Ignore, string>(cluster.CreateConsumerConfig("alone")).Build();
consumer.Subscribe("alone");
ConsumeResult<Ignore, string>? read = consumer.Consume(TimeSpan.FromSeconds(60));
consumer.Close();

using var registry = InProcessSchemaRegistry.Start();
using var http = new HttpClient();
string subjects = await http.GetStringAsync(registry.Url + "/subjects").WaitAsync(TimeSpan.FromSeconds(60));
bool ok = read?.Message.Value == "carried" && subjects == "[]";
Console.WriteLine(ok ? "alone: OK" : $"alone: FAILED (read {read?.Message.Value}, subjects {subjects})");
return ok ? 0 : 1;
