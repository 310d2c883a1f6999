using System;
using System.CommandLine;
using System.IO;
using System.Threading.Tasks;
using Google.Protobuf;
using KafkaProtobuf.SchemaRegistry;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>
/// How a schema command that asks a registry runs: the client from the registry options, and each kind of failure to
/// its exit code with one line on standard error (a file that cannot be read or compiled: usage; the registry refusing
/// a schema as incompatible: 1; the registry unreachable or refusing anything else: 3).
/// </summary>
internal static class RegistryCommandRun
{
    public static async Task<int> RunAsync(
        string command, ParseResult result, SchemaOptions registry, TextWriter error, Func<RegistryClient, Task<int>> run)
    {
        RegistryClient? client;
        try
        {
            client = registry.Client(result, warning => error.WriteLine("kafka-protobuf: warning: " + warning));
        }
        catch (ArgumentException e)
        {
            return await Fail(error, command, e.Message, ExitCodes.Usage).ConfigureAwait(false); // a secret file that cannot be read
        }

        if (client is null)
        {
            return await Fail(error, command, "--schema-registry is required.", ExitCodes.Usage).ConfigureAwait(false);
        }

        using (client)
        {
            try
            {
                return await run(client).ConfigureAwait(false);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or FormatException or ArgumentException
                or InvalidProtocolBufferException or InvalidDataException)
            {
                // ProtoSyntaxException is a FormatException: the file and line of each error.
                return await Fail(error, command, e.Message, ExitCodes.Usage).ConfigureAwait(false);
            }
            catch (System.Text.RegularExpressions.RegexMatchTimeoutException e)
            {
                return await Fail(error, command, "--subject-pattern took longer than " + e.MatchTimeout.TotalSeconds + " s on a subject: simplify it", ExitCodes.Usage).ConfigureAwait(false);
            }
            catch (SchemaRegistryRequestException e) when (e.StatusCode == 409)
            {
                return await Fail(error, command, "the registry refused the schema: " + e.Message, SchemaCommand.Incompatible).ConfigureAwait(false);
            }
            catch (SchemaRegistryRequestException e)
            {
                return await Fail(error, command, "the registry could not be asked: " + e.Message, ExitCodes.ConnectionFailure).ConfigureAwait(false);
            }
        }
    }

    public static async Task<int> Fail(TextWriter error, string command, string message, int exit)
    {
        await error.WriteLineAsync("kafka-protobuf " + command + ": " + message).ConfigureAwait(false);
        return exit;
    }
}
