using System.IO;
using System.Text;
using System.Threading.Tasks;

namespace KafkaProtobuf.Tool.Output;

/// <summary>
/// Standard error as the tool writes it: every line passes through <see cref="TerminalText.Neutralize"/>, so that no
/// message (a registry's, a broker's, an exception's, a file name) can carry an escape sequence to the terminal. The
/// tool's own lines have no control characters; only the line breaks it writes reach the terminal.
/// </summary>
internal sealed class NeutralizingWriter(TextWriter inner) : TextWriter
{
    public override Encoding Encoding => inner.Encoding;

    public override void Write(char value) => inner.Write(TerminalText.Neutralize(value.ToString()));

    public override void Write(string? value) => inner.Write(TerminalText.Neutralize(value));

    public override void WriteLine(string? value) => inner.WriteLine(TerminalText.Neutralize(value));

    public override void WriteLine() => inner.WriteLine();

    public override Task WriteAsync(string? value) => inner.WriteAsync(TerminalText.Neutralize(value));

    public override Task WriteLineAsync(string? value) => inner.WriteLineAsync(TerminalText.Neutralize(value));

    public override Task WriteLineAsync() => inner.WriteLineAsync();

    public override void Flush() => inner.Flush();

    public override Task FlushAsync() => inner.FlushAsync();
}
