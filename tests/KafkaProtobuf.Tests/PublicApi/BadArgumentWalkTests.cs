using System;
using System.Collections;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;
using System.Threading;
using System.Threading.Tasks;
using Confluent.Kafka;
using StringValue = Google.Protobuf.WellKnownTypes.StringValue;
using KafkaProtobuf.SchemaRegistry;
using KafkaProtobuf.Testing;
using Microsoft.Extensions.DependencyInjection;
using Xunit;

namespace KafkaProtobuf.Tests.PublicApi;

/// <summary>
/// Every public constructor and method of each package, called with one bad argument at a time (null, empty, negative,
/// an undefined enum value, a default identifier) and plausible ones elsewhere: what escapes is an argument exception,
/// one of the documented exception types, or a dependency's own (Kafka's), never a NullReferenceException, an index
/// or cast failure or anything else that says the package did not check what it was given. Members that take spans
/// cannot be called through reflection; the fuzz and property tests cover them.
/// </summary>
public sealed class BadArgumentWalkTests : IDisposable
{
    private static readonly Type[] Allowed =
    [
        typeof(ArgumentException), // ArgumentNullException and ArgumentOutOfRangeException included
        typeof(ObjectDisposedException), // an InvalidOperationException, listed for what it says
        typeof(InvalidOperationException),
        typeof(OperationCanceledException),
        typeof(InvalidFrameException),
        typeof(SchemaUnavailableException),
        typeof(UnusableSchemaException),
        typeof(KafkaProtobuf.DeadLetters.DeadLetterException),
        typeof(SchemaRegistryRequestException),
        typeof(ProtoSyntaxException),
        typeof(KafkaException), // the broker's, through Confluent.Kafka
        typeof(System.IO.IOException), // a file that cannot be read, where a member reads one
        typeof(FormatException), // text a Parse method does not read, as the framework's own Parse methods throw
    ];

    private readonly InProcessSchemaRegistry _registry = InProcessSchemaRegistry.Start();
    private readonly List<IDisposable> _made = [];

    public void Dispose()
    {
        foreach (IDisposable made in Enumerable.Reverse(_made))
        {
            made.Dispose();
        }

        _registry.Dispose();
    }

    public static TheoryData<string> Packages() =>
        new() { "KafkaProtobuf", "KafkaProtobuf.SchemaRegistry", "KafkaProtobuf.Hosting", "KafkaProtobuf.Streamiz", "KafkaProtobuf.Testing" };

    [Theory]
    [MemberData(nameof(Packages))]
    public async Task EveryPublicMember_GivenABadArgument_ThrowsOnlyArgumentOrDocumentedExceptions(string package)
    {
        var escaped = new List<string>();
        int calls = 0;
        foreach (Type exported in Assembly.Load(package).GetExportedTypes().Where(t => !t.IsEnum && !t.IsInterface && !typeof(Delegate).IsAssignableFrom(t)))
        {
            Type? type = Close(exported);
            if (type is null)
            {
                continue;
            }

            foreach (ConstructorInfo constructor in type.GetConstructors())
            {
                foreach (object?[] arguments in BadArgumentLists(constructor.GetParameters()))
                {
                    calls++;
                    await Call(() => constructor.Invoke(arguments), constructor, arguments, escaped);
                }
            }

            object? instance = type.IsAbstract ? null : Instance(type);
            foreach (MethodInfo declared in type.GetMethods(BindingFlags.Public | BindingFlags.Static | BindingFlags.Instance | BindingFlags.DeclaredOnly))
            {
                MethodInfo? method = Close(declared);
                if (method is null || method.Name is "Dispose" or "DisposeAsync" || (!method.IsStatic && instance is null))
                {
                    continue;
                }

                foreach (object?[] arguments in BadArgumentLists(method.GetParameters()))
                {
                    calls++;
                    await Call(() => method.Invoke(method.IsStatic ? null : instance, arguments), method, arguments, escaped);
                }
            }
        }

        Assert.True(calls >= 10, $"{package}: only {calls} calls were made; the walk found too little to call");
        Assert.True(escaped.Count == 0, $"{package}: {escaped.Count} of {calls} calls let through what they should not:\n" + string.Join("\n", escaped));
    }

    private async Task Call(Func<object?> call, MethodBase member, object?[] arguments, List<string> escaped)
    {
        try
        {
            object? result = call();
            if (result is Task task)
            {
                await task.WaitAsync(TimeSpan.FromSeconds(60));
            }

            Keep(result);
            Keep(result?.GetType().GetProperty("Result")?.GetValue(result));
        }
        catch (Exception e)
        {
            Exception thrown = e is TargetInvocationException { InnerException: { } inner } ? inner : e;
            if (thrown is TimeoutException && e == thrown)
            {
                escaped.Add($"{Describe(member, arguments)}: did not finish within 60 s");
            }
            else if (!Allowed.Any(a => a.IsInstanceOfType(thrown)))
            {
                escaped.Add($"{Describe(member, arguments)}: {thrown.GetType().Name}: {thrown.Message.Split('\n')[0]}");
            }
        }
    }

    private void Keep(object? made)
    {
        if (made is IDisposable disposable && made is not Task)
        {
            _made.Add(disposable);
        }
    }

    private static string Describe(MethodBase member, object?[] arguments) =>
        $"{member.DeclaringType!.Name}.{member.Name}({string.Join(", ", arguments.Select(a => a switch { null => "null", string s => $"\"{s}\"", _ => a.ToString() }))})";

    /// <summary>For each parameter that can be wrong, a list with that one wrong and the others plausible.</summary>
    private IEnumerable<object?[]> BadArgumentLists(ParameterInfo[] parameters)
    {
        if (parameters.Any(p => p.ParameterType.IsByRefLike || p.ParameterType.IsByRef || p.ParameterType.IsPointer))
        {
            yield break;
        }

        object?[] plausible = parameters.Select(p => Plausible(p.ParameterType)).ToArray();
        if (parameters.Length == 0)
        {
            yield return [];
            yield break;
        }

        for (int i = 0; i < parameters.Length; i++)
        {
            foreach (object? bad in Bad(parameters[i].ParameterType))
            {
                object?[] arguments = (object?[])plausible.Clone();
                arguments[i] = bad;
                yield return arguments;
            }
        }
    }

    private static IEnumerable<object?> Bad(Type type)
    {
        Type? underlying = Nullable.GetUnderlyingType(type);
        if (!type.IsValueType || underlying is not null)
        {
            yield return null;
        }

        Type value = underlying ?? type;
        if (value == typeof(string))
        {
            yield return string.Empty;
            yield return " \u001b[2J\n";
        }
        else if (value == typeof(int))
        {
            yield return -1;
            yield return 0;
        }
        else if (value == typeof(long))
        {
            yield return -1L;
        }
        else if (value == typeof(double))
        {
            yield return double.NaN;
            yield return -1.0;
        }
        else if (value == typeof(TimeSpan))
        {
            yield return TimeSpan.FromSeconds(-1);
            yield return TimeSpan.MaxValue;
        }
        else if (value.IsEnum)
        {
            yield return Enum.ToObject(value, 999);
        }
        else if (value == typeof(SchemaIdentifier))
        {
            yield return default(SchemaIdentifier);
        }
        else if (value == typeof(SerializationContext))
        {
            yield return default(SerializationContext);
        }
        else if (value.IsArray)
        {
            yield return Array.CreateInstance(value.GetElementType()!, 1); // one null element
        }
    }

    private object? Plausible(Type type)
    {
        Type value = Nullable.GetUnderlyingType(type) ?? type;
        if (value == typeof(string))
        {
            return "orders";
        }

        if (value == typeof(int) || value == typeof(long) || value == typeof(double))
        {
            return Convert.ChangeType(1, value, System.Globalization.CultureInfo.InvariantCulture);
        }

        if (value == typeof(bool))
        {
            return true;
        }

        if (value == typeof(TimeSpan))
        {
            return TimeSpan.FromSeconds(1);
        }

        if (value == typeof(Guid))
        {
            return new Guid("0f8fad5b-d9cb-469f-a165-70867728950e");
        }

        if (value == typeof(DateTimeOffset))
        {
            return DateTimeOffset.UnixEpoch;
        }

        if (value == typeof(CancellationToken))
        {
            return CancellationToken.None;
        }

        if (value == typeof(SchemaIdentifier))
        {
            return SchemaIdentifier.FromId(1);
        }

        if (value == typeof(SerializationContext))
        {
            return new SerializationContext(MessageComponentType.Value, "orders");
        }

        if (value == typeof(ReadOnlyMemory<byte>))
        {
            return new ReadOnlyMemory<byte>([0, 0, 0, 0, 1, 0]);
        }

        if (value.IsEnum)
        {
            return Enum.GetValues(value).GetValue(0);
        }

        if (value.IsArray)
        {
            return Array.CreateInstance(value.GetElementType()!, 0);
        }

        if (value == typeof(Google.Protobuf.Reflection.FileDescriptor))
        {
            return StringValue.Descriptor.File;
        }

        if (value == typeof(Google.Protobuf.Reflection.MessageDescriptor))
        {
            return StringValue.Descriptor;
        }

        if (value == typeof(Google.Protobuf.MessageParser<StringValue>))
        {
            return StringValue.Parser;
        }

        if (value == typeof(StringValue) || value == typeof(Google.Protobuf.IMessage))
        {
            return new StringValue { Value = "x" };
        }

        if (value == typeof(RegistryClient))
        {
            var client = new RegistryClient(_registry.Url);
            _made.Add(client);
            return client;
        }

        if (value == typeof(IServiceCollection))
        {
            return new ServiceCollection();
        }

        if (value.IsGenericType && value.GetGenericArguments().Length == 1 && value.IsInterface)
        {
            // IEnumerable<T>, IReadOnlyList<T>, IList<T>: an empty list
            Type list = typeof(List<>).MakeGenericType(value.GetGenericArguments()[0]);
            return value.IsAssignableFrom(list) ? Activator.CreateInstance(list) : null;
        }

        // Kafka configs, clients, builders, delegates: null. A real client would reach for a broker; the walk is about
        // what the package checks, not what a broker answers.
        return null;
    }

    private object? Instance(Type type)
    {
        if (type == typeof(EmbeddedKafkaCluster))
        {
            EmbeddedKafkaCluster cluster = EmbeddedKafkaCluster.Start();
            _made.Add(cluster);
            cluster.CreateTopic("orders", 1);
            return cluster;
        }

        if (type == typeof(InProcessSchemaRegistry))
        {
            return _registry;
        }

        foreach (ConstructorInfo constructor in type.GetConstructors().OrderBy(c => c.GetParameters().Length))
        {
            try
            {
                object made = constructor.Invoke(constructor.GetParameters().Select(p => Plausible(p.ParameterType)).ToArray());
                Keep(made);
                return made;
            }
            catch (TargetInvocationException)
            {
                // the next constructor, perhaps
            }
        }

        return null;
    }

    /// <summary>Generic types and methods closed over StringValue (a generated message) where the constraints allow.</summary>
    private static Type? Close(Type type)
    {
        if (!type.IsGenericTypeDefinition)
        {
            return type;
        }

        try
        {
            return type.MakeGenericType(type.GetGenericArguments().Select(_ => typeof(StringValue)).ToArray());
        }
        catch (ArgumentException)
        {
            return null;
        }
    }

    private static MethodInfo? Close(MethodInfo method)
    {
        if (!method.IsGenericMethodDefinition)
        {
            return method;
        }

        try
        {
            return method.MakeGenericMethod(method.GetGenericArguments().Select(_ => typeof(StringValue)).ToArray());
        }
        catch (ArgumentException)
        {
            try
            {
                return method.MakeGenericMethod(method.GetGenericArguments().Select(_ => typeof(Google.Protobuf.IMessage)).ToArray());
            }
            catch (ArgumentException)
            {
                return null;
            }
        }
    }
}
