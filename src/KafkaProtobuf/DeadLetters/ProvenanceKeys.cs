using System;
using System.Collections.Generic;
using System.Globalization;

namespace KafkaProtobuf.DeadLetters;

/// <summary>
/// The secret keys that sign and verify the blocks of headers this package appends to a record (a dead letter's, a
/// retry copy's, a redrive's): each block then carries an HMAC-SHA256 over the record's key, value and headers up to and
/// including the block, and a reader with the keys believes a block only when it verifies. The first key signs; every
/// key verifies, so a new key is rolled out by putting it first while the old one stays, and the old one removed once
/// nothing it signed is still read. Give every writer and reader of a dead-letter flow the same keys (the hosted
/// consumers, the redrive, the operations page, the tool, the dashboard): see docs/dead-letters.md.
/// </summary>
/// <remarks>
/// Without keys a block is believed unchecked: then only who may write the retry and dead-letter topics (their ACLs)
/// keeps a forged block out. The keys are copied; <see cref="ToString"/> never shows them.
/// </remarks>
public sealed class ProvenanceKeys
{
    /// <summary>The fewest bytes a key has: 16 (32 random bytes are recommended).</summary>
    public static int MinKeyBytes => 16;

    private readonly byte[][] _keys;

    /// <summary>Keys given as bytes, the signing key first; unsigned dead letters are believed (see <see cref="RequireSignatures"/>).</summary>
    /// <param name="keys">The keys, at least one, each at least <see cref="MinKeyBytes"/> bytes.</param>
    /// <exception cref="ArgumentNullException"><paramref name="keys"/> or one of them is null.</exception>
    /// <exception cref="ArgumentException">No key, or a key shorter than <see cref="MinKeyBytes"/>.</exception>
    public ProvenanceKeys(IEnumerable<byte[]> keys)
        : this(keys, requireSignatures: false)
    {
    }

    /// <summary>Keys given as bytes, the signing key first.</summary>
    /// <param name="keys">The keys, at least one, each at least <see cref="MinKeyBytes"/> bytes.</param>
    /// <param name="requireSignatures">See <see cref="RequireSignatures"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="keys"/> or one of them is null.</exception>
    /// <exception cref="ArgumentException">No key, or a key shorter than <see cref="MinKeyBytes"/>.</exception>
    public ProvenanceKeys(IEnumerable<byte[]> keys, bool requireSignatures)
    {
        if (keys is null)
        {
            throw new ArgumentNullException(nameof(keys));
        }

        var copies = new List<byte[]>();
        foreach (byte[] key in keys)
        {
            if (key is null)
            {
                throw new ArgumentNullException(nameof(keys), "A provenance key is null.");
            }

            if (key.Length < MinKeyBytes)
            {
                throw new ArgumentException("A provenance key has " + key.Length.ToString(CultureInfo.InvariantCulture) + " bytes; each needs at least " + MinKeyBytes.ToString(CultureInfo.InvariantCulture) + " (32 random bytes are recommended).", nameof(keys));
            }

            copies.Add((byte[])key.Clone());
        }

        if (copies.Count == 0)
        {
            throw new ArgumentException("At least one provenance key is needed.", nameof(keys));
        }

        _keys = [.. copies];
        RequireSignatures = requireSignatures;
    }

    /// <summary>How many keys there are (the first signs).</summary>
    public int Count => _keys.Length;

    /// <summary>
    /// Whether a dead letter with no signed block at all is refused (not believed: no source, never redriven). Off by
    /// default, so that dead letters written before the keys were switched on stay redrivable; a dead letter with any
    /// signed block needs every block it rests on signed and verified, whatever this says.
    /// </summary>
    public bool RequireSignatures { get; }

    /// <summary>The signing key.</summary>
    internal byte[] Signing => _keys[0];

    /// <summary>Every key, the signing one first.</summary>
    internal IReadOnlyList<byte[]> All => _keys;

    /// <summary>
    /// Keys written as text, as a file or an environment variable holds them: base64 (standard or URL-safe, padding
    /// optional), separated by commas, semicolons or white space (lines), the signing key first; <c>#</c> starts a
    /// comment to the end of its line.
    /// </summary>
    /// <param name="text">The keys' text.</param>
    /// <returns>The keys; unsigned dead letters are believed.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="text"/> is null.</exception>
    /// <exception cref="FormatException">A key is not base64 (which one is said by its place, never its text), or there is none.</exception>
    /// <exception cref="ArgumentException">A key is shorter than <see cref="MinKeyBytes"/>.</exception>
    public static ProvenanceKeys Parse(string text) => Parse(text, requireSignatures: false);

    /// <summary>Keys written as text (see <see cref="Parse(string)"/>).</summary>
    /// <param name="text">The keys' text.</param>
    /// <param name="requireSignatures">See <see cref="RequireSignatures"/>.</param>
    /// <returns>The keys.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="text"/> is null.</exception>
    /// <exception cref="FormatException">A key is not base64 (which one is said by its place, never its text), or there is none.</exception>
    /// <exception cref="ArgumentException">A key is shorter than <see cref="MinKeyBytes"/>.</exception>
    public static ProvenanceKeys Parse(string text, bool requireSignatures)
    {
        if (text is null)
        {
            throw new ArgumentNullException(nameof(text));
        }

        var keys = new List<byte[]>();
        foreach (string line in text.Split('\n'))
        {
            int comment = line.IndexOf('#');
            string content = comment < 0 ? line : line.Substring(0, comment);
            foreach (string word in content.Split([',', ';', ' ', '\t', '\r'], StringSplitOptions.RemoveEmptyEntries))
            {
                keys.Add(FromBase64(word, keys.Count + 1));
            }
        }

        if (keys.Count == 0)
        {
            throw new FormatException("No provenance key: give one or more base64 keys, the signing key first.");
        }

        return new ProvenanceKeys(keys, requireSignatures);
    }

    /// <summary>Never the keys: how many there are and the policy.</summary>
    /// <returns>A description without secrets.</returns>
    public override string ToString() =>
        Count.ToString(CultureInfo.InvariantCulture) + (Count == 1 ? " provenance key" : " provenance keys") + (RequireSignatures ? ", signatures required" : string.Empty);

    private static byte[] FromBase64(string word, int place)
    {
        string standard = word.Replace('-', '+').Replace('_', '/');
        standard = standard.PadRight(standard.Length + ((4 - (standard.Length % 4)) % 4), '=');
        try
        {
            return Convert.FromBase64String(standard);
        }
        catch (FormatException)
        {
            throw new FormatException("Provenance key " + place.ToString(CultureInfo.InvariantCulture) + " is not base64.");
        }
    }
}
