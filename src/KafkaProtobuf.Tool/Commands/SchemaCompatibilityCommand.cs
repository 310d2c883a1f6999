using System.CommandLine;
using System.IO;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Tool.Output;

namespace KafkaProtobuf.Tool.Commands;

/// <summary>
/// <c>kafka-protobuf schema set-compatibility (--subject S | --global) (--level L | --remove)</c>: sets the level a
/// subject's (or every subject's) next registrations are checked at, or removes a subject's own.
/// </summary>
internal static class SchemaCompatibilityCommand
{
    public static Command Create(TextWriter output, TextWriter error)
    {
        var subject = new Option<string?>("--subject") { Description = "The subject whose own level is set or removed (it need not exist yet).", HelpName = "subject" };
        var global = new Option<bool>("--global") { Description = "Set the global level, the one subjects without their own are checked at." };
        var level = new Option<string?>("--level") { Description = "NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL or FULL_TRANSITIVE.", HelpName = "level" };
        var remove = new Option<bool>("--remove") { Description = "With --subject: remove the subject's own level; it is checked at the global one again." };
        var registry = new SchemaOptions();
        var command = new Command("set-compatibility", "Set the compatibility level a subject's next registrations are checked at (or the global level), or remove a subject's own. Exit code 0 set, 2 usage, 3 registry unreachable or refused.")
        {
            subject, global, level, remove,
        };
        registry.AddRegistryTo(command);
        command.SetAction(async (result, cancellationToken) =>
        {
            string? subjectName = result.GetValue(subject);
            string? levelName = result.GetValue(level);
            bool removing = result.GetValue(remove);
            CompatibilityLevel chosen = CompatibilityLevel.Backward;
            string? usage = (subjectName is null) == !result.GetValue(global) ? "give --subject or --global"
                : (levelName is null) == !removing ? "give --level or --remove"
                : removing && subjectName is null ? "--remove goes with --subject: the global level is always set"
                : levelName is not null && !CompatibilityLevelNames.TryParse(levelName, out chosen) ? "--level is one of " + string.Join(", ", CompatibilityLevelNames.All)
                : null;
            if (usage is not null)
            {
                return await RegistryCommandRun.Fail(error, "schema set-compatibility", usage + ".", ExitCodes.Usage).ConfigureAwait(false);
            }

            return await RegistryCommandRun.RunAsync("schema set-compatibility", result, registry, error, async client =>
            {
                string name = subjectName is null ? "global" : TerminalText.Neutralize(subjectName);
                if (removing)
                {
                    await client.DeleteCompatibilityLevelAsync(subjectName!, cancellationToken).ConfigureAwait(false);
                    CompatibilityLevel now = await client.GetCompatibilityLevelAsync(subjectName!, cancellationToken).ConfigureAwait(false);
                    await output.WriteAsync(name + ": own level removed; checked at the global level, " + CompatibilityLevelNames.Of(now) + "\n").ConfigureAwait(false);
                    return ExitCodes.Ok;
                }

                await (subjectName is null
                    ? client.SetGlobalCompatibilityLevelAsync(chosen, cancellationToken)
                    : client.SetCompatibilityLevelAsync(subjectName, chosen, cancellationToken)).ConfigureAwait(false);
                await output.WriteAsync(name + ": " + CompatibilityLevelNames.Of(chosen) + "\n").ConfigureAwait(false);
                return ExitCodes.Ok;
            }).ConfigureAwait(false);
        });
        return command;
    }
}
