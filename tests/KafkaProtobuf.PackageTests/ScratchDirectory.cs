using System;
using System.IO;

namespace KafkaProtobuf.PackageTests;

/// <summary>A temporary folder of a test's own, deleted when disposed (one left behind is not a test failure).</summary>
public sealed class ScratchDirectory(string prefix) : IDisposable
{
    public string Path { get; } = Directory.CreateTempSubdirectory(prefix).FullName;

    public void Dispose()
    {
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (IOException)
        {
            // a temp folder left behind is not a test failure
        }
    }
}
