using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading.Tasks;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using KafkaProtobuf.Decoding;
using KafkaProtobuf.Tests.Support;
using KafkaProtobuf.Tool.Commands;
using KafkaProtobuf.Tool.Output;
using Xunit;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>
/// kafka-protobuf on payloads and registries made to break it: groups and messages nested past any real schema (once a
/// stack overflow and a JSON reader's depth limit, each ending the run), and escape sequences and bidirectional controls
/// in what it prints. Each failing record is an error line with its reason; nothing untrusted reaches the terminal raw.
/// </summary>
public sealed class HostilePayloadToolTests : IDisposable
{
    private readonly List<string> _files = [];

    public void Dispose()
    {
        foreach (string file in _files)
        {
            File.Delete(file);
        }
    }

    /// <summary>The fuzz target's self-nesting <c>Node</c> (child = 1, name = 2).</summary>
    internal static FileDescriptor NodeFile => KafkaProtobuf.Fuzz.ToolHarness.Node;

    /// <summary>A Node payload <paramref name="depth"/> messages deep, the innermost named <paramref name="name"/>.</summary>
    internal static byte[] Nested(int depth, string name = "x")
    {
        var payload = new List<byte> { 0x12, (byte)Encoding.UTF8.GetByteCount(name) };
        payload.AddRange(Encoding.UTF8.GetBytes(name));
        for (int i = 1; i < depth; i++)
        {
            var wrapped = new List<byte> { 0x0a };
            for (uint length = (uint)payload.Count; ; length >>= 7)
            {
                wrapped.Add((byte)(length < 0x80 ? length : (length & 0x7f) | 0x80));
                if (length < 0x80)
                {
                    break;
                }
            }

            wrapped.AddRange(payload);
            payload = wrapped;
        }

        return [.. payload];
    }

    /// <summary>50 KB of group starts that never end: a recursive skip without a limit overflows the stack.</summary>
    internal static byte[] NestedGroups() => [.. Enumerable.Repeat((byte)0x13, 50_000)];

    internal static byte[] Framed(byte[] payload) => [0x00, 0, 0, 0, 1, 0x00, .. payload];

    [Fact]
    public void TheDecoder_RefusesGroupsAndMessagesNestedPastGoogleProtobufsLimit_AndDecodesThoseWithinIt()
    {
        var decoder = new ProtoJsonDecoder([NodeFile]);
        MessageDescriptor node = NodeFile.MessageTypes[0];

        string within = decoder.Decode(node, Nested(WireReader.MaxDepth));
        PayloadDecodeException tooDeep = Assert.Throws<PayloadDecodeException>(() => decoder.Decode(node, Nested(WireReader.MaxDepth + 1)));
        PayloadDecodeException groups = Assert.Throws<PayloadDecodeException>(() => decoder.Decode(node, NestedGroups()));

        Assert.Equal(WireReader.MaxDepth - 1, within.Split("\"child\"").Length - 1);
        Assert.Contains("messages nested deeper than 100", tooDeep.Message, StringComparison.Ordinal);
        Assert.Contains("groups nested deeper than 100", groups.Message, StringComparison.Ordinal);
        Assert.Equal("{\"name\":\"x\"}", decoder.Decode(node, Nested(1))); // the decoder is whole again afterwards
    }

    [Fact]
    public async Task Frame_OnAPayloadOfFiftyKilobytesOfNestedGroups_PrintsTheError_InsteadOfOverflowingTheStack()
    {
        ToolProcess.Result run = await ToolProcess.RunAsync("frame", "@" + Write(Framed(NestedGroups())), "--descriptor-set", NodeSet());

        Assert.True(run.ExitCode == ExitCodes.BadRecords, $"exit {run.ExitCode}: {run.Error}"); // was 134: Stack overflow
        Assert.Contains("error          the payload is not a fuzz.v1.Node: groups nested deeper than 100", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Frame_OnAMessageNestedSeventyDeep_PrintsIt_PastTheJsonReadersDefaultDepth()
    {
        ToolProcess.Result run = await ToolProcess.RunAsync("frame", "@" + Write(Framed(Nested(70))), "--descriptor-set", NodeSet());

        Assert.True(run.ExitCode == ExitCodes.Ok, $"exit {run.ExitCode}: {run.Error}");
        Assert.Contains("type           fuzz.v1.Node", run.Output, StringComparison.Ordinal);
        Assert.Equal(69, run.Output.Split("\"child\"").Length - 1);
    }

    [Fact]
    public async Task Frame_ShowsWhatARegistryOrRecordSaysWithItsEscapesAndBidiControlsMadeInert()
    {
        const string Hostile = "\u001b[2J\u001b]0;owned\u0007 \u009b31m \u202eevil\u202c \u2066x\u2069\r\nkafka-protobuf: forged line";
        using var registry = new ScriptedRegistry();
        registry.Error("/schemas/ids/1", 422, 42202, Hostile);
        registry.Error("/schemas/ids/2", 503, 50301, Hostile);
        var output = new StringWriter();
        var error = new StringWriter();

        int unusable = await KafkaProtobufTool.RunAsync(["frame", Hex(Framed(Nested(1))), "--schema-registry", registry.Url], output, error);
        byte[] second = [0x00, 0, 0, 0, 2, 0x00, .. Nested(1)];
        int outage = await KafkaProtobufTool.RunAsync(["frame", Hex(second), "--schema-registry", registry.Url], output, error);

        string shown = output + "\n" + error;
        Assert.Equal(ExitCodes.BadRecords, unusable);
        Assert.Equal(ExitCodes.ConnectionFailure, outage);
        Assert.Contains("\\x1b[2J\\x1b]0;owned\\x07 \\x9b31m \\u202eevil\\u202c \\u2066x\\u2069\\x0d\\x0akafka-protobuf: forged line", output.ToString(), StringComparison.Ordinal);
        Assert.Contains("\\x1b[2J", error.ToString(), StringComparison.Ordinal);
        Assert.DoesNotContain(shown, c => c is '\u001b' or '\u0007' or '\u009b' or '\r' or (>= '\u202a' and <= '\u202e') or (>= '\u2066' and <= '\u2069'));
        Assert.DoesNotContain("\nkafka-protobuf: forged line", shown, StringComparison.Ordinal);
    }

    [Fact]
    public void TerminalText_EscapesControlsAndBidi_AndLeavesOrdinaryTextAlone()
    {
        Assert.Equal("plain, ünïcødé ✓", TerminalText.Neutralize("plain, ünïcødé ✓"));
        Assert.Equal("\\x1b[31m\\x7f\\x85\\u200f\\u061c", TerminalText.Neutralize("\u001b[31m\u007f\u0085\u200f\u061c"));
        Assert.Equal("{\"s\":\"\\u202eabc\\u2069\"}", TerminalText.EscapeBidi("{\"s\":\"\u202eabc\u2069\"}"));
        Assert.Equal("{\"s\":\"\\u001B\"}", TerminalText.EscapeBidi("{\"s\":\"\\u001B\"}")); // JSON's own escapes untouched
    }

    private static string Hex(byte[] bytes) => Convert.ToHexString(bytes);

    private string Write(byte[] bytes)
    {
        string path = Path.GetTempFileName();
        _files.Add(path);
        File.WriteAllBytes(path, bytes);
        return path;
    }

    private string NodeSet() => OrderTopic.WriteDescriptorSet(_files, Google.Protobuf.WellKnownTypes.AnyReflection.Descriptor, Google.Protobuf.WellKnownTypes.StructReflection.Descriptor, NodeFile);
}
