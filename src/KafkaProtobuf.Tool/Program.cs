using KafkaProtobuf.Tool.Commands;

// kafka-protobuf: look inside framed Kafka records. Exit codes: 0 ok, 1 bad records (--fail-on-error), 2 usage,
// 3 Kafka or Schema Registry unreachable, 130 interrupted.
return await KafkaProtobufTool.RunAsync(args, StandardStreams.Output(), StandardStreams.Error()).ConfigureAwait(false);
