using System;
using System.Linq;
using Confluent.Kafka;
using Google.Protobuf;
using Google.Protobuf.WellKnownTypes;
using KafkaProtobuf.Benchmarks.AddressBook;
using KafkaProtobuf.Framing;
using Timestamp = Google.Protobuf.WellKnownTypes.Timestamp;

namespace KafkaProtobuf.Benchmarks;

/// <summary>The records every benchmark reads: the tutorial's address book at three sizes, framed like Confluent frames it.</summary>
public static class Payloads
{
    public const string Topic = "addressbook";

    /// <summary>The schema id the frames carry (any value does: nothing is looked up).</summary>
    public static readonly SchemaIdentifier SchemaId = SchemaIdentifier.FromId(2);

    public static readonly SchemaIdentifier SchemaGuid = SchemaIdentifier.FromGuid(Guid.Parse("535dfcf3-ca23-439a-a2aa-7cf32e6ddf10"));

    /// <summary>S: one person (47 B), M: 20 people (~1 KB), L: 1,300 people (~64 KB).</summary>
    public static AddressBook.AddressBook Book(string size) => size switch
    {
        "S" => new AddressBook.AddressBook { People = { SmallPerson() } },
        "M" => new AddressBook.AddressBook { People = { Enumerable.Range(0, 20).Select(NumberedPerson) } },
        "L" => new AddressBook.AddressBook { People = { Enumerable.Range(0, 1300).Select(NumberedPerson) } },
        _ => throw new ArgumentOutOfRangeException(nameof(size), size, "S, M or L"),
    };

    public static Person.Types.PhoneNumber.Types.Verification Verification() => new()
    {
        Method = "sms",
        VerifiedAt = new Timestamp { Seconds = 1_700_000_000, Nanos = 5 },
        Token = ByteString.CopyFrom(Enumerable.Range(0, 16).Select(i => (byte)i).ToArray()),
    };

    /// <summary>A record as the consumer sees it: its bytes and the serialization context with its headers.</summary>
    public static (byte[] Data, SerializationContext Context) Frame<T>(T message, SchemaIdPlacement placement)
        where T : class, IMessage<T>, new()
    {
        var headers = new Headers { { "traceparent", new byte[55] } };
        var context = new SerializationContext(MessageComponentType.Value, Topic, headers);
        SchemaIdentifier id = placement == SchemaIdPlacement.Header ? SchemaGuid : SchemaId;
        byte[] data = new FramedProtobufSerializer<T>(id, new FramedSerializerOptions { SchemaIdPlacement = placement })
            .Serialize(message, context)!;
        return (data, context);
    }

    private static Person SmallPerson() => new()
    {
        Name = "John Doe",
        Id = 1234,
        Email = "jdoe@example.com",
        Phones = { new Person.Types.PhoneNumber { Number = "555-4321", Type = Person.Types.PhoneType.Home } },
    };

    private static Person NumberedPerson(int i) => new()
    {
        Name = "Person " + i,
        Id = i,
        Email = $"person{i}@example.com",
        Phones =
        {
            new Person.Types.PhoneNumber { Number = "555-" + (1000 + i), Type = Person.Types.PhoneType.Mobile },
        },
        LastUpdated = new Timestamp { Seconds = 1_700_000_000 + i },
    };
}
