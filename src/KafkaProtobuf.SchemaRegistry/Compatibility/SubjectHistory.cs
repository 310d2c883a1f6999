using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;
using System.Threading.Tasks;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// A subject's versions as the registry holds them, each with its references resolved, and the compatibility level a new
/// schema is checked at against them (<see cref="ProtobufCompatibility"/>): what the tool's <c>schema check</c> and the
/// dashboard's Check .proto compare with.
/// </summary>
public sealed class SubjectHistory
{
    private SubjectHistory(string subject, IReadOnlyList<ProtoSchema> versions, CompatibilityLevel level)
    {
        Subject = subject;
        Versions = versions;
        Level = level;
    }

    /// <summary>The subject.</summary>
    public string Subject { get; }

    /// <summary>Its versions, oldest first; empty for a subject not registered yet (a first registration: any schema may be).</summary>
    public IReadOnlyList<ProtoSchema> Versions { get; }

    /// <summary>The level a new schema is checked at: the subject's own, or the registry's global level.</summary>
    public CompatibilityLevel Level { get; }

    /// <summary>Reads a subject's versions and level from the registry.</summary>
    /// <param name="client">The registry.</param>
    /// <param name="subject">The subject.</param>
    /// <param name="cancellationToken">Stops waiting for the registry.</param>
    /// <returns>The history.</returns>
    /// <exception cref="ArgumentNullException">An argument is null (thrown at the call).</exception>
    /// <exception cref="ArgumentException"><paramref name="subject"/> is empty (thrown at the call).</exception>
    /// <exception cref="SchemaRegistryRequestException">The registry refused a request.</exception>
    /// <exception cref="SchemaUnavailableException">The registry could not be asked, or a version's schema could not be obtained.</exception>
    /// <exception cref="InvalidDataException">A version the registry answered without a schema id.</exception>
    public static Task<SubjectHistory> ReadAsync(RegistryClient client, string subject, CancellationToken cancellationToken = default)
    {
        if (client is null)
        {
            throw new ArgumentNullException(nameof(client));
        }

        if (subject is null)
        {
            throw new ArgumentNullException(nameof(subject));
        }

        if (subject.Length == 0)
        {
            throw new ArgumentException("Give the subject.", nameof(subject));
        }

        return ReadCoreAsync(client, subject, cancellationToken);
    }

    private static async Task<SubjectHistory> ReadCoreAsync(RegistryClient client, string subject, CancellationToken cancellationToken)
    {
        CompatibilityLevel level = await client.GetCompatibilityLevelAsync(subject, cancellationToken).ConfigureAwait(false);
        IReadOnlyList<int> versions;
        try
        {
            versions = await client.GetVersionsAsync(subject, cancellationToken).ConfigureAwait(false);
        }
        catch (SchemaRegistryRequestException e) when (e.ErrorCode == 40401)
        {
            return new SubjectHistory(subject, [], level); // a first registration: any schema may be registered
        }

        var schemas = new List<ProtoSchema>();
        foreach (int version in versions)
        {
            RegistrySchema schema = await client.GetVersionAsync(subject, version, cancellationToken).ConfigureAwait(false);
            if (schema.Id is not int id)
            {
                throw new InvalidDataException(subject + " version " + version + ": the registry's answer has no schema id");
            }

            schemas.Add(ProtoSchema.Of(await client.GetFileAsync(SchemaIdentifier.FromId(id), cancellationToken).ConfigureAwait(false)));
        }

        return new SubjectHistory(subject, schemas.AsReadOnly(), level);
    }
}
