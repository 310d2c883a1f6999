using System;
using Xunit;

namespace KafkaProtobuf.Tests.Framing;

public class SchemaIdentifierTests
{
    private static readonly Guid SchemaGuid = Guid.Parse("535dfcf3-ca23-439a-a2aa-7cf32e6ddf10");

    [Fact]
    public void Default_IsNone()
    {
        SchemaIdentifier none = default;
        Assert.Equal(SchemaIdKind.None, none.Kind);
        Assert.Null(none.Id);
        Assert.Null(none.Guid);
        Assert.Equal("none", none.ToString());
    }

    [Fact]
    public void Id_ExposesOnlyTheId()
    {
        SchemaIdentifier id = SchemaIdentifier.FromId(0);
        Assert.Equal(SchemaIdKind.Id, id.Kind);
        Assert.Equal(0, id.Id);
        Assert.Null(id.Guid);
        Assert.Equal("id 0", id.ToString());
        Assert.NotEqual(default, id); // id 0 is an id, not "none"
    }

    [Fact]
    public void Guid_ExposesOnlyTheGuid()
    {
        SchemaIdentifier guid = SchemaIdentifier.FromGuid(SchemaGuid);
        Assert.Equal(SchemaIdKind.Guid, guid.Kind);
        Assert.Equal(SchemaGuid, guid.Guid);
        Assert.Null(guid.Id);
        Assert.Equal("guid 535dfcf3-ca23-439a-a2aa-7cf32e6ddf10", guid.ToString());
    }

    [Fact]
    public void Equality_ComparesKindAndValue()
    {
        Assert.Equal(SchemaIdentifier.FromId(7), SchemaIdentifier.FromId(7));
        Assert.True(SchemaIdentifier.FromId(7) == SchemaIdentifier.FromId(7));
        Assert.True(SchemaIdentifier.FromId(7) != SchemaIdentifier.FromId(8));
        Assert.NotEqual(SchemaIdentifier.FromId(0), SchemaIdentifier.FromGuid(Guid.Empty));
        Assert.Equal(SchemaIdentifier.FromGuid(SchemaGuid).GetHashCode(), SchemaIdentifier.FromGuid(SchemaGuid).GetHashCode());
    }
}
