using System.Threading;
using System.Threading.Tasks;
using Aspire.Hosting.ApplicationModel;

namespace KafkaProtobuf.Aspire.Hosting;

/// <summary>
/// A value a resource knows once it has started (bootstrap servers, a URL: ports are the operating system's choice),
/// for its connection string. Not the resource itself: a connection string that refers to its own resource would
/// resolve itself forever.
/// </summary>
internal sealed class StartedValue(string resourceName, string property) : IValueProvider, IManifestExpressionProvider
{
    private readonly TaskCompletionSource<string> _value = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public string ValueExpression => "{" + resourceName + "." + property + "}";

    public void Set(string value) => _value.TrySetResult(value);

    public async ValueTask<string?> GetValueAsync(CancellationToken cancellationToken = default) =>
        await _value.Task.WaitAsync(cancellationToken).ConfigureAwait(false);
}
