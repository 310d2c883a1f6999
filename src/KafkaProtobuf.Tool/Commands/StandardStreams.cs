using System;
using System.IO;
using System.Text;
using Microsoft.Win32.SafeHandles;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>
/// Standard output and standard error as writers of the tool's own, each with its own lock. Not
/// <see cref="Console.Out"/> and <see cref="Console.Error"/>: on Unix every console stream write holds
/// <c>Console.Out</c>'s lock while it writes, so one blocked on a full pipe (<c>kafka-protobuf consume | less</c>,
/// paused) would block every other write, and the tool could not even say on standard error that it is stopping.
/// </summary>
internal static class StandardStreams
{
    public static TextWriter Output() => Open(1, Console.OpenStandardOutput);

    public static TextWriter Error() => Open(2, Console.OpenStandardError);

    private static TextWriter Open(int descriptor, Func<Stream> console)
    {
        // On Unix, the file descriptor itself (not owned: it stays open for the runtime); elsewhere the console's stream.
        Stream stream = OperatingSystem.IsWindows()
            ? console()
            : new FileStream(new SafeFileHandle(descriptor, ownsHandle: false), FileAccess.Write, bufferSize: 0);

        // As the console's own writers: no byte-order mark, every write flushed.
        Encoding encoding = Console.OutputEncoding is UTF8Encoding ? new UTF8Encoding(encoderShouldEmitUTF8Identifier: false) : Console.OutputEncoding;
        return TextWriter.Synchronized(new StreamWriter(stream, encoding, bufferSize: 4096) { AutoFlush = true });
    }
}
