using System;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;

namespace KafkaProtobuf.Benchmarks.Tools;

/// <summary>
/// The in-process registry with addressbook.proto registered under the id and GUID the benchmark frames carry
/// (<see cref="Payloads.SchemaId"/>, <see cref="Payloads.SchemaGuid"/>), timestamp.proto left out as Confluent's
/// serializer leaves well-known types out.
/// </summary>
public static class AddressBookRegistry
{
    public static InProcessSchemaRegistry Start()
    {
        InProcessSchemaRegistry registry = InProcessSchemaRegistry.Start();
        registry.AssignNextSchema(Payloads.SchemaId.Id!.Value, Payloads.SchemaGuid.Guid!.Value);
        using var client = new RegistryClient(registry.Url);
        client.RegisterAsync(Payloads.Topic + "-value", AddressBook.AddressbookReflection.Descriptor.SerializedData.ToBase64(), "PROTOBUF", [], normalize: false)
            .GetAwaiter().GetResult();
        return registry;
    }
}
