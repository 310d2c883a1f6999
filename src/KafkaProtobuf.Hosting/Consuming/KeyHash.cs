using System;

namespace KafkaProtobuf.Hosting.Consuming;

/// <summary>
/// Per-key order: a record's key bytes (as written, before deserialization) pick its sequence, so records with equal
/// keys always share one. FNV-1a: cheap for short keys, and spreads keys that differ in one byte.
/// </summary>
internal static class KeyHash
{
    public static uint Of(ReadOnlySpan<byte> key)
    {
        uint hash = 2166136261;
        foreach (byte b in key)
        {
            hash = (hash ^ b) * 16777619;
        }

        return hash;
    }
}
