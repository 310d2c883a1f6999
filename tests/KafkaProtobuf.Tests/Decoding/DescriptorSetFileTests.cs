using System;
using System.IO;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Decoding;
using Xunit;

namespace KafkaProtobuf.Tests.Decoding;

/// <summary>A file that is not a usable descriptor set is one exception, whatever is wrong with it: InvalidDataException.</summary>
public sealed class DescriptorSetFileTests : IDisposable
{
    private readonly string _path = Path.Combine(Path.GetTempPath(), "kp-set-" + Guid.NewGuid().ToString("N") + ".pb");

    public void Dispose() => File.Delete(_path);

    [Fact]
    public void ASetWhoseImportIsMissing_IsInvalidData_NotTheBuildersArgumentException()
    {
        var file = new FileDescriptorProto { Name = "orders.proto", Syntax = "proto3", Package = "orders" };
        file.Dependency.Add("missing/customer.proto");
        var set = new FileDescriptorSet();
        set.File.Add(file);
        File.WriteAllBytes(_path, set.ToByteArray());

        InvalidDataException e = Assert.Throws<InvalidDataException>(() => DescriptorSetFile.Read(_path));
        Assert.IsAssignableFrom<ArgumentException>(e.InnerException);
        Assert.Contains("--include_imports", e.Message);
    }

    [Fact]
    public void BytesThatAreNoDescriptorSet_AreInvalidData()
    {
        File.WriteAllBytes(_path, [0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]); // a length past the end
        InvalidDataException e = Assert.Throws<InvalidDataException>(() => DescriptorSetFile.Read(_path));
        Assert.IsType<InvalidProtocolBufferException>(e.InnerException);
    }

    [Fact]
    public void ASetWithNoFiles_IsInvalidData()
    {
        File.WriteAllBytes(_path, []);
        Assert.Throws<InvalidDataException>(() => DescriptorSetFile.Read(_path));
    }
}
