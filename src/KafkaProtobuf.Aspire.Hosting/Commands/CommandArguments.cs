using System.Collections.Generic;
using Aspire.Hosting;
using Aspire.Hosting.ApplicationModel;

namespace KafkaProtobuf.Aspire.Hosting.Commands;

/// <summary>The text inputs the dashboard asks for before running a command, their values when it runs, and when it may run.</summary>
internal static class CommandArguments
{
    public static IReadOnlyList<InteractionInput> Text(params (string Name, string Label, string Description)[] inputs)
    {
        var list = new List<InteractionInput>();
        foreach ((string name, string label, string description) in inputs)
        {
            list.Add(new InteractionInput { Name = name, Label = label, Description = description, InputType = InputType.Text, Required = true });
        }

        return list;
    }

    /// <summary>The value given, trimmed; null when the command was run without it.</summary>
    public static string? Value(ExecuteCommandContext context, string name) =>
        context.Arguments is { } arguments && arguments.TryGetByName(name, out InteractionInput? input) && input?.Value is { } value && value.Trim().Length > 0
            ? value.Trim()
            : null;

    /// <summary>A command of a resource runs only while the resource does (its cluster or registry is there to ask).</summary>
    public static ResourceCommandState EnabledWhileRunning(UpdateCommandStateContext context) =>
        context.ResourceSnapshot.State?.Text == KnownResourceStates.Running ? ResourceCommandState.Enabled : ResourceCommandState.Disabled;
}
