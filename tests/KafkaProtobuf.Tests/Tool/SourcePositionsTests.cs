using System;
using System.IO;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Tests.Registry;
using KafkaProtobuf.Tool.Schemas;
using Xunit;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>Where a difference's path points in a file protoc compiled with source positions: each kind of element, and the nearest one left for what is gone.</summary>
public sealed class SourcePositionsTests : IDisposable
{
    private const string Text = """
        syntax = "proto3";
        package p;

        message Order {
          int32 quantity = 1;
          message Line {
            string sku = 3;
          }
          oneof payment {
            string card = 4;
            string iban = 5;
          }
          enum State {
            STATE_UNSPECIFIED = 0;
            STATE_OPEN = 1;
          }
        }

        enum Colour {
          COLOUR_UNSPECIFIED = 0;
          COLOUR_RED = 7;
        }
        """;

    private readonly string _directory = Directory.CreateTempSubdirectory("source-positions-").FullName;
    private readonly FileDescriptorSet _set;

    public SourcePositionsTests()
    {
        File.WriteAllText(Path.Combine(_directory, "order.proto"), Text.Replace("\r\n", "\n", StringComparison.Ordinal));
        string output = Path.Combine(_directory, "order.pb");
        Protoc.WriteDescriptorSet(_directory, output, "order.proto");
        _set = FileDescriptorSet.Parser.ParseFrom(File.ReadAllBytes(output));
    }

    public void Dispose() => Directory.Delete(_directory, recursive: true);

    [Theory]
    [InlineData("#/Order/1", "int32 quantity = 1;")]
    [InlineData("#/Order/Line/3", "string sku = 3;")]
    [InlineData("#/Order/payment/5", "string iban = 5;")]
    [InlineData("#/Order/State/1", "STATE_OPEN = 1;")]
    [InlineData("#/Colour/7", "COLOUR_RED = 7;")]
    [InlineData("#/Order/9", "message Order {")]
    [InlineData("#/Order/payment/9", "oneof payment {")]
    [InlineData("#/Order/Gone/1", "message Order {")]
    [InlineData("#/", "package p;")]
    public void APath_PointsAtItsElement_OrTheNearestOneLeft(string path, string expected)
    {
        (string File, int Line, int Column)? found = SourcePositions.Find(_set, "order.proto", path);

        string[] lines = Text.Replace("\r\n", "\n", StringComparison.Ordinal).Split('\n');
        int line = Array.FindIndex(lines, l => l.Contains(expected, StringComparison.Ordinal));
        Assert.Equal(("order.proto", line + 1, lines[line].IndexOf(expected, StringComparison.Ordinal) + 1), found);
    }

    [Fact]
    public void ATypeNoFileDeclares_OrASetWithoutPositions_HasNoPosition()
    {
        Assert.Null(SourcePositions.Find(_set, "order.proto", "#/Nothing/1"));
        FileDescriptorSet plain = _set.Clone();
        plain.File[0].SourceCodeInfo = null;
        Assert.Null(SourcePositions.Find(plain, "order.proto", "#/Order/1"));
    }
}
