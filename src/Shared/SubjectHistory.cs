using System.Collections.Generic;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using KafkaProtobuf.SchemaRegistry;

namespace KafkaProtobuf.Shared;

/// <summary>
/// A subject's versions as the registry holds them, for a compatibility check of a new schema against them. Shared as
/// source by the tool's <c>schema check</c> and the Aspire registry resource's dashboard command.
/// </summary>
internal static class SubjectHistory
{
    /// <summary>A subject's versions, oldest first, each with its references resolved, and the level it is checked at (none yet: nothing to compare with).</summary>
    /// <exception cref="SchemaRegistryRequestException">The registry could not be asked.</exception>
    /// <exception cref="InvalidDataException">A version the registry answered without a schema id.</exception>
    public static async Task<(IReadOnlyList<ProtoSchema> Versions, CompatibilityLevel Level)> ReadAsync(RegistryClient client, string subject, CancellationToken cancellationToken)
    {
        CompatibilityLevel level = await client.GetCompatibilityLevelAsync(subject, cancellationToken).ConfigureAwait(false);
        IReadOnlyList<int> versions;
        try
        {
            versions = await client.GetVersionsAsync(subject, cancellationToken).ConfigureAwait(false);
        }
        catch (SchemaRegistryRequestException e) when (e.ErrorCode == 40401)
        {
            return ([], level); // a first registration: any schema may be registered
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

        return (schemas, level);
    }
}
