using System;
using System.Linq;
using CsCheck;
using Xunit;

namespace KafkaProtobuf.Tests.Hostile;

/// <summary>
/// Text from a registry, a record or a handler's exception, quoted in messages and log lines: never a control or
/// bidirectional character (a forged log line, a rewritten terminal), never longer than its limit, never an escape or a
/// surrogate pair cut in two.
/// </summary>
public sealed class BoundedTextTests
{
    // Each package links its own copy (the test project sees several: CS0433); the core package's is tested.
    private static readonly Type Shared = typeof(FrameErrorCode).Assembly.GetType("KafkaProtobuf.BoundedText", throwOnError: true)!;
    private static readonly string CutMarker = (string)Shared.GetField("CutMarker")!.GetValue(null)!;

    private static string Cut(string? text, int maxChars = 1000) => (string)Shared.GetMethod("Cut")!.Invoke(null, [text, maxChars])!;

    // Latin-1 (C0, DEL, C1 among it), the bidirectional controls, and any UTF-16 unit (lone surrogates included).
    private static readonly Gen<char> Chars = Gen.OneOf(Gen.Char['\u0000', '\u00ff'], Gen.Int[0, 6].Select(i => "\u202a\u202e\u2066\u2069\u200e\u200f\u061c"[i]), Gen.Char);

    // The test's own list of what must never reach a message: C0, DEL, C1 and the bidirectional controls.
    private static bool IsUnsafe(char c) => c < 0x20 || (c >= 0x7f && c <= 0x9f) || c is (>= '\u202a' and <= '\u202e') or (>= '\u2066' and <= '\u2069') or '\u200e' or '\u200f' or '\u061c';

    [Fact]
    public void ARegistrysLineBreaksAndEscapeSequences_AreWrittenOut_SoNoLogLineCanBeForged()
    {
        string quoted = Cut("schema not found\r\n2026-11-27 ERROR admin password accepted\u001b[2J\u0085\u007f");

        Assert.Equal(@"schema not found\x0d\x0a2026-11-27 ERROR admin password accepted\x1b[2J\x85\x7f", quoted);
    }

    [Fact]
    public void BidirectionalControls_AreWrittenOut()
    {
        Assert.Equal(@"invoice\u202egpj.exe \u2066x\u2069 \u200f", Cut("invoice\u202egpj.exe \u2066x\u2069 \u200f"));
    }

    [Fact]
    public void PlainTextWithinTheLimit_IsReturnedAsItIs()
    {
        string plain = "subject 'orders-value' not found; héllo 🙂";

        Assert.Same(plain, Cut(plain));
    }

    [Fact]
    public void ACutNeverSplitsAnEscape()
    {
        // Each ESC becomes 4 characters; the marker leaves a budget that is not a multiple of 4.
        string text = new('\u001b', 100);
        string marker = CutMarker + "100 characters in all]";

        string quoted = Cut(text, marker.Length + 10);

        Assert.Equal(string.Concat(Enumerable.Repeat(@"\x1b", 2)) + marker, quoted);
    }

    [Fact]
    public void ACutNeverSplitsASurrogatePair()
    {
        string text = "ab" + string.Concat(Enumerable.Repeat("🙂", 50));
        string marker = CutMarker + "102 characters in all]";

        string quoted = Cut(text, marker.Length + 5);

        Assert.Equal("ab🙂" + marker, quoted);
    }

    [Fact]
    public void AnyText_IsInert_AndWithinItsLimit_AndKeepsItsStart()
    {
        Gen.Select(Gen.String[Chars, 0, 300], Gen.Int[60, 400]).Sample((text, limit) =>
        {
            string quoted = Cut(text, limit);

            Assert.True(quoted.Length <= limit, $"{quoted.Length} characters, limit {limit}");
            Assert.DoesNotContain(quoted, IsUnsafe);
            string safePrefix = new([.. text.TakeWhile(c => !IsUnsafe(c) && !char.IsSurrogate(c)).Take(Math.Max(0, limit - 60))]);
            Assert.StartsWith(safePrefix, quoted, StringComparison.Ordinal);
        });
    }
}
