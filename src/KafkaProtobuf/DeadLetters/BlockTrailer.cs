using System;
using System.Globalization;
using System.Text;

namespace KafkaProtobuf.DeadLetters;

/// <summary>
/// The value of a block's last header (<see cref="DeadLetterHeaderNames.Block"/>): <c>v1;start=S;own=O</c>, and
/// <c>;hmac=…</c> (32 bytes, base64url without padding) when the block is signed. Read strictly: exactly what
/// <see cref="Text"/> writes, numbers without leading zeros, or it is no trailer.
/// </summary>
internal readonly struct BlockTrailer
{
    private const string Version = "v1;start=";
    private const string OwnPart = ";own=";
    private const string SignaturePart = ";hmac=";
    private const int SignatureChars = 43; // 32 bytes, base64url, unpadded

    private BlockTrailer(int start, int own, string prefix, byte[]? signature)
    {
        Start = start;
        Own = own;
        Prefix = prefix;
        Signature = signature;
    }

    /// <summary>The index of the block's first header: how many headers come before the block.</summary>
    public int Start { get; }

    /// <summary>Where the record's own headers end, as its writer knew it (an index, at most <see cref="Start"/>).</summary>
    public int Own { get; }

    /// <summary>The trailer's text before its signature: what the signature covers last.</summary>
    public string Prefix { get; }

    /// <summary>The block's HMAC, or null for an unsigned block.</summary>
    public byte[]? Signature { get; }

    /// <summary>The text before the signature, <c>v1;start=S;own=O</c>.</summary>
    public static string PrefixOf(int start, int own) =>
        Version + start.ToString(CultureInfo.InvariantCulture) + OwnPart + own.ToString(CultureInfo.InvariantCulture);

    /// <summary>The trailer's text: the prefix, and the signature when there is one.</summary>
    public static string Text(string prefix, byte[]? signature) =>
        signature is null ? prefix : prefix + SignaturePart + Base64Url(signature);

    /// <summary>Reads a trailer's value (hostile bytes: anything at all); false when it is not one <see cref="Text"/> writes.</summary>
    public static bool TryParse(byte[]? value, out BlockTrailer trailer)
    {
        trailer = default;
        if (value is null || value.Length > 128)
        {
            return false;
        }

        string text = Encoding.UTF8.GetString(value);
        if (!text.StartsWith(Version, StringComparison.Ordinal))
        {
            return false;
        }

        int at = Version.Length;
        if (!TryNumber(text, ref at, out int start) || !text.Substring(at).StartsWith(OwnPart, StringComparison.Ordinal))
        {
            return false;
        }

        at += OwnPart.Length;
        if (!TryNumber(text, ref at, out int own))
        {
            return false;
        }

        string prefix = text.Substring(0, at);
        byte[]? signature = null;
        if (at < text.Length)
        {
            string rest = text.Substring(at);
            if (!rest.StartsWith(SignaturePart, StringComparison.Ordinal) || rest.Length != SignaturePart.Length + SignatureChars
                || FromBase64Url(rest.Substring(SignaturePart.Length)) is not { Length: BlockSignature.Bytes } bytes)
            {
                return false;
            }

            signature = bytes;
        }

        trailer = new BlockTrailer(start, own, prefix, signature);
        return true;
    }

    /// <summary>1 to 9 digits, no leading zero but for 0 itself.</summary>
    private static bool TryNumber(string text, ref int at, out int value)
    {
        value = 0;
        int first = at;
        while (at < text.Length && text[at] is >= '0' and <= '9' && at - first < 9)
        {
            value = (value * 10) + (text[at] - '0');
            at++;
        }

        int digits = at - first;
        return digits >= 1 && !(digits > 1 && text[first] == '0') && !(at < text.Length && text[at] is >= '0' and <= '9');
    }

    private static string Base64Url(byte[] bytes) => Convert.ToBase64String(bytes).TrimEnd('=').Replace('+', '-').Replace('/', '_');

    private static byte[]? FromBase64Url(string text)
    {
        foreach (char c in text)
        {
            if (!(c is (>= 'A' and <= 'Z') or (>= 'a' and <= 'z') or (>= '0' and <= '9') or '-' or '_'))
            {
                return null;
            }
        }

        string standard = text.Replace('-', '+').Replace('_', '/');
        return Convert.FromBase64String(standard.PadRight(standard.Length + ((4 - (standard.Length % 4)) % 4), '='));
    }
}
