using System;
using System.IO;

namespace KafkaProtobuf.Tests.Support;

/// <summary>The repository's folder (the one holding <c>KafkaProtobuf.sln</c>), for tests that read the sources and docs.</summary>
public static class RepositoryRoot
{
    /// <summary>Its full path.</summary>
    public static string Path { get; } = Find();

    private static string Find()
    {
        for (DirectoryInfo? dir = new(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(System.IO.Path.Combine(dir.FullName, "KafkaProtobuf.sln")))
            {
                return dir.FullName;
            }
        }

        throw new InvalidOperationException("KafkaProtobuf.sln not found above " + AppContext.BaseDirectory);
    }
}
