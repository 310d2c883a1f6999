using System;
using System.Collections.Generic;
using System.IO;
using System.Threading.Tasks;
using KafkaProtobuf.Testing;
using KafkaProtobuf.Tests.Support;
using KafkaProtobuf.Tool.Commands;
using Vectors.Telemetry.V1;
using Xunit;

namespace KafkaProtobuf.Tests.Tool;

/// <summary>
/// kafka-protobuf's secrets: the registry's credentials come from a file or the environment as well as an argument, and
/// an argument (which ps and shell history show) draws a warning, as does <c>-X</c> with a secret property; the secret
/// itself is never printed, whatever fails.
/// </summary>
public sealed class ToolSecretTests : IDisposable
{
    private const string Password = "Tool-S3cret-Never-Shown";

    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();
    private readonly List<string> _files = [];

    public ToolSecretTests() => _registry.RequireBasicAuth("tool", Password);

    public void Dispose()
    {
        _registry.Dispose();
        foreach (string file in _files)
        {
            File.Delete(file);
        }
    }

    private static readonly Dictionary<string, string?> NoSecretInTheEnvironment = new() { [Secrets.BasicAuthVariable] = null, [Secrets.BearerTokenVariable] = null };

    /// <summary>A framed Reading under an id the registry does not know: the registry is asked (and authenticates) either way.</summary>
    private static string Record() => Convert.ToHexString([0x00, 0, 0, 0, 9, 0x00, .. Google.Protobuf.MessageExtensions.ToByteArray(new Reading { SensorId = "s" })]);

    [Fact]
    public async Task RegistryCredentials_FromAFile_OrTheEnvironment_AreUsed_WithoutAWarning()
    {
        string file = Path.GetTempFileName();
        _files.Add(file);
        File.WriteAllText(file, "tool:" + Password + "\n");

        ToolProcess.Result fromFile = await ToolProcess.RunAsync(NoSecretInTheEnvironment, "frame", Record(), "--schema-registry", _registry.Url, "--registry-basic-auth-file", file);
        ToolProcess.Result fromEnvironment = await ToolProcess.RunAsync(
            new Dictionary<string, string?> { [Secrets.BasicAuthVariable] = "tool:" + Password }, "frame", Record(), "--schema-registry", _registry.Url);

        foreach (ToolProcess.Result run in new[] { fromFile, fromEnvironment })
        {
            Assert.Equal(ExitCodes.BadRecords, run.ExitCode); // schema 9 is not known: the registry answered, so the credentials were taken
            Assert.Contains("schema id 9 is not known to the schema source", run.Output, StringComparison.Ordinal);
            Assert.DoesNotContain("warning", run.Error, StringComparison.Ordinal);
            Assert.DoesNotContain(Password, run.Output + run.Error, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task RegistryCredentialsAsAnArgument_Work_ButDrawAWarning_AndAreNeverPrinted()
    {
        ToolProcess.Result right = await ToolProcess.RunAsync(NoSecretInTheEnvironment, "frame", Record(), "--schema-registry", _registry.Url, "--registry-basic-auth", "tool:" + Password);
        ToolProcess.Result wrong = await ToolProcess.RunAsync(NoSecretInTheEnvironment, "frame", Record(), "--schema-registry", _registry.Url, "--registry-basic-auth", "tool:wrong-" + Password);

        Assert.Equal(ExitCodes.BadRecords, right.ExitCode);
        Assert.Contains("warning: --registry-basic-auth puts a secret on the command line", right.Error, StringComparison.Ordinal);
        Assert.Equal(ExitCodes.ConnectionFailure, wrong.ExitCode); // refused: the registry's 401, named
        Assert.Contains("401", wrong.Error, StringComparison.Ordinal);
        Assert.DoesNotContain(Password, right.Output + right.Error + wrong.Output + wrong.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ASecretKafkaPropertyAsAnArgument_DrawsAWarning_AndAKafkaConfigFileIsRead()
    {
        string config = Path.GetTempFileName();
        _files.Add(config);
        File.WriteAllText(config, "# the consumer's settings\nsecurity.protocol=plaintext\nsocket.timeout.ms = 3000\n");

        ToolProcess.Result run = await ToolProcess.RunAsync(
            "consume", "-b", "127.0.0.1:1", "-t", "none", "-F", config, "-X", "sasl.password=" + Password, "-X", "socket.connection.setup.timeout.ms=1000");

        Assert.Contains("warning: -X sasl.password=... puts a secret on the command line", run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain(Password, run.Output + run.Error, StringComparison.Ordinal);
        Assert.Equal(ExitCodes.ConnectionFailure, run.ExitCode); // nothing listens there: the settings were taken, the broker not reached
    }
}
