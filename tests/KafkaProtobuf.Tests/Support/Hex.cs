using System;

namespace KafkaProtobuf.Tests.Support;

public static class Hex
{
    /// <summary>Bytes from hex with optional spaces, so frames in tests read field by field: "00 0000002a 02 03".</summary>
    public static byte[] Bytes(string hex) => Convert.FromHexString(hex.Replace(" ", string.Empty, StringComparison.Ordinal));
}
