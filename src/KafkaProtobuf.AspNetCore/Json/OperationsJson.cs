using System.Text.Json;
using System.Text.Json.Serialization;

namespace KafkaProtobuf.AspNetCore.Json;

/// <summary>The page's JSON, generated at build (trimming and native AOT), camelCase, nulls left out.</summary>
[JsonSourceGenerationOptions(JsonSerializerDefaults.Web, DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(SessionView))]
[JsonSerializable(typeof(ConsumersView))]
[JsonSerializable(typeof(DeadLetterPage))]
[JsonSerializable(typeof(RawView))]
[JsonSerializable(typeof(RedriveRequest))]
[JsonSerializable(typeof(RunRequest))]
[JsonSerializable(typeof(DryRunView))]
[JsonSerializable(typeof(RunView))]
[JsonSerializable(typeof(RunsView))]
[JsonSerializable(typeof(PartitionActionRequest))]
[JsonSerializable(typeof(ActionView))]
[JsonSerializable(typeof(ErrorView))]
internal sealed partial class OperationsJson : JsonSerializerContext
{
}
