using System;
using System.Net;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Threading;
using System.Threading.Tasks;
using KafkaProtobuf.SchemaRegistry;

namespace KafkaProtobuf.Fuzz;

/// <summary>
/// The fuzz target for parsing registry answers (<c>registry</c>): an input is what a registry answers to every request
/// (byte 0 picks the status and content type, the rest is the body), and the registry client turns it into the writer's
/// file of schema id 1 as a deserializer asks, references and all (each reference gets the same answer). The invariant:
/// a file, <see cref="UnusableSchemaException"/> (an answer that can never be used) or
/// <see cref="SchemaRegistryRequestException"/> (a failure to ask); any other exception is a finding, as is a message
/// past its bound. Also compiled into the tests, which replay its findings.
/// </summary>
public static class RegistryAnswerHarness
{
    private static readonly int[] Statuses = [200, 200, 200, 200, 404, 422, 500, 401, 403, 429, 301, 204];
    private static readonly string[] ContentTypes = ["application/vnd.schemaregistry.v1+json", "application/json", "text/html", string.Empty];

    public static void Check(ReadOnlySpan<byte> input)
    {
        byte selector = input.IsEmpty ? (byte)0 : input[0];
        byte[] body = input.IsEmpty ? [] : input[1..].ToArray();
        using var client = new RegistryClient(new RegistryClientOptions
        {
            Urls = { "http://registry.fuzz" },
            MaxRetries = 0,
            HttpMessageHandler = new Answering((int)Statuses[selector % Statuses.Length], ContentTypes[(selector >> 4) % ContentTypes.Length], body),
            MaxResponseBytes = 64 * 1024,
            MaxReferences = 16,
            MaxReferenceDepth = 8,
        });
        ISchemaFileSource source = client;
        try
        {
            source.GetSchemaFileAsync(SchemaIdentifier.FromId(1), CancellationToken.None).GetAwaiter().GetResult();
        }
        catch (Exception e) when (e is UnusableSchemaException or SchemaRegistryRequestException or UnauthorizedAccessException)
        {
            if (e.Message.Length > 10_000)
            {
                throw new FuzzFindingException($"a message of {e.Message.Length:N0} characters: answers must be cut");
            }
        }
    }

    /// <summary>Answers every request with the same status, content type and body, as a broken or hostile registry might.</summary>
    private sealed class Answering(int status, string contentType, byte[] body) : HttpMessageHandler
    {
        protected override Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            var response = new HttpResponseMessage((HttpStatusCode)status) { Content = new ByteArrayContent(body), RequestMessage = request };
            if (contentType.Length > 0)
            {
                response.Content.Headers.ContentType = new MediaTypeHeaderValue(contentType);
            }

            return Task.FromResult(response);
        }
    }
}
