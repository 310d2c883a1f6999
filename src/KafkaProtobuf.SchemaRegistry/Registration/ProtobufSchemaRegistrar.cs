using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Google.Protobuf.Reflection;

namespace KafkaProtobuf.SchemaRegistry;

/// <summary>
/// Registers a .proto file and what it imports as Confluent's Protobuf serializers do, and as
/// <see cref="RegistryProtobufSerializer{T}"/> does on a subject's first record: each import first (its own imports
/// before it), under its import path as both subject and reference name, Google's and Confluent's well-known files
/// skipped (<see cref="RegistrySerializerOptions.SkipKnownTypes"/>); then the file under its subject, its imports as
/// references at the versions the registry gave them. The serializer, the tool and builds register through this one
/// piece, so what one registers the others find.
/// </summary>
/// <remarks>
/// Each schema is the file's serialized descriptor in base64, as generated code holds it. Registering a schema a
/// subject already has creates no new version (the registry answers the one it has). Thread-safe.
/// </remarks>
public sealed class ProtobufSchemaRegistrar
{
    private readonly RegistryClient _client;
    private readonly RegistrySerializerOptions _options;

    /// <summary>Creates a registrar with Confluent's defaults (register, known types skipped, not normalized).</summary>
    /// <param name="client">The registry client.</param>
    public ProtobufSchemaRegistrar(RegistryClient client)
        : this(client, null)
    {
    }

    /// <summary>Creates a registrar that registers as a serializer with these options would.</summary>
    /// <param name="client">The registry client.</param>
    /// <param name="options">
    /// The serializer's options, or <see langword="null"/> for Confluent's defaults: <see cref="RegistrySerializerOptions.AutoRegisterSchemas"/>
    /// off only looks up (nothing is registered), <see cref="RegistrySerializerOptions.NormalizeSchemas"/> and
    /// <see cref="RegistrySerializerOptions.SkipKnownTypes"/> as the serializer reads them; the others are not used.
    /// </param>
    public ProtobufSchemaRegistrar(RegistryClient client, RegistrySerializerOptions? options)
    {
        _client = client ?? throw new ArgumentNullException(nameof(client));
        options ??= new RegistrySerializerOptions();
        _options = new RegistrySerializerOptions
        {
            AutoRegisterSchemas = options.AutoRegisterSchemas,
            NormalizeSchemas = options.NormalizeSchemas,
            SkipKnownTypes = options.SkipKnownTypes,
        };
    }

    /// <summary>
    /// What <see cref="RegisterAsync"/> registers, in its order, without a registry: each import not skipped once (a
    /// file imported twice is registered once, before the first file that imports it), the file last.
    /// </summary>
    /// <param name="subject">The subject the file is registered under (see <see cref="SubjectNames"/>).</param>
    /// <param name="file">The file, built with its imports.</param>
    /// <param name="options">The serializer's options (<see cref="RegistrySerializerOptions.SkipKnownTypes"/> is read), or <see langword="null"/> for Confluent's defaults.</param>
    /// <returns>The registrations.</returns>
    /// <exception cref="ArgumentException"><paramref name="subject"/> is empty.</exception>
    public static IReadOnlyList<SchemaRegistrationStep> Plan(string subject, FileDescriptor file, RegistrySerializerOptions? options)
    {
        if (string.IsNullOrEmpty(subject))
        {
            throw new ArgumentException("A subject is required.", nameof(subject));
        }

        if (file is null)
        {
            throw new ArgumentNullException(nameof(file));
        }

        bool skipKnownTypes = (options ?? new RegistrySerializerOptions()).SkipKnownTypes;
        var steps = new List<SchemaRegistrationStep>();
        var planned = new HashSet<string>(StringComparer.Ordinal);
        AddImports(file, skipKnownTypes, steps, planned);
        steps.Add(new SchemaRegistrationStep(subject, file, ReferencedImports(file, skipKnownTypes)));
        return steps;
    }

    /// <summary>
    /// Registers (or with <see cref="RegistrySerializerOptions.AutoRegisterSchemas"/> off, looks up) each step of
    /// <see cref="Plan"/> in order: a step's references name the versions the registry gave the steps before it.
    /// </summary>
    /// <param name="subject">The subject the file is registered under.</param>
    /// <param name="file">The file, built with its imports.</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>The registry's answer for each step, in the plan's order: the file's is last.</returns>
    /// <exception cref="ArgumentException"><paramref name="subject"/> is empty.</exception>
    /// <exception cref="SchemaRegistryRequestException">
    /// A registration or lookup failed (409/40901: incompatible with the subject's versions; 422/42201: invalid; with
    /// registration off, 40401/40403: not registered). The steps before it stay registered.
    /// </exception>
    public Task<IReadOnlyList<RegistrySchema>> RegisterAsync(string subject, FileDescriptor file, CancellationToken cancellationToken = default) =>
        RegisterStepsAsync(Plan(subject, file, _options), cancellationToken);

    /// <summary>
    /// Registers <paramref name="file"/>'s imports as <see cref="RegisterAsync"/> would (or with
    /// <see cref="RegistrySerializerOptions.AutoRegisterSchemas"/> off, only looks them up), but not the file itself,
    /// and gives the references its registration would carry: what a compatibility test of the file sends with it.
    /// </summary>
    /// <param name="file">The file, built with its imports.</param>
    /// <param name="cancellationToken">Stops waiting.</param>
    /// <returns>Its imports that are not skipped, in its import order, at the versions the registry holds them.</returns>
    /// <exception cref="SchemaRegistryRequestException">An import's registration or lookup failed (with registration off, 40401/40403: that import is not registered as it is here).</exception>
    public Task<IReadOnlyList<RegistryReference>> RegisterImportsAsync(FileDescriptor file, CancellationToken cancellationToken = default) =>
        ReferencesOfStepsAsync(Plan("-", file ?? throw new ArgumentNullException(nameof(file)), _options), cancellationToken);

    private async Task<IReadOnlyList<RegistryReference>> ReferencesOfStepsAsync(IReadOnlyList<SchemaRegistrationStep> steps, CancellationToken cancellationToken)
    {
        var versions = new Dictionary<string, int>(StringComparer.Ordinal);
        for (int i = 0; i < steps.Count - 1; i++)
        {
            await RegisterStepAsync(steps[i], versions, cancellationToken).ConfigureAwait(false);
        }

        return ReferencesOf(steps[steps.Count - 1], versions);
    }

    private async Task<IReadOnlyList<RegistrySchema>> RegisterStepsAsync(IReadOnlyList<SchemaRegistrationStep> steps, CancellationToken cancellationToken)
    {
        var answers = new List<RegistrySchema>(steps.Count);
        var versions = new Dictionary<string, int>(StringComparer.Ordinal);
        foreach (SchemaRegistrationStep step in steps)
        {
            answers.Add(await RegisterStepAsync(step, versions, cancellationToken).ConfigureAwait(false));
        }

        return answers;
    }

    private static List<RegistryReference> ReferencesOf(SchemaRegistrationStep step, Dictionary<string, int> versions)
    {
        var references = new List<RegistryReference>(step.References.Count);
        foreach (string import in step.References)
        {
            references.Add(new RegistryReference(import, import, versions[import]));
        }

        return references;
    }

    /// <summary>Registers (or looks up) one step; its version is noted for the steps that reference it.</summary>
    private async Task<RegistrySchema> RegisterStepAsync(SchemaRegistrationStep step, Dictionary<string, int> versions, CancellationToken cancellationToken)
    {
        List<RegistryReference> references = ReferencesOf(step, versions);
        string schema = step.File.SerializedData.ToBase64();
        bool normalize = _options.NormalizeSchemas;
        RegistrySchema answer = _options.AutoRegisterSchemas
            ? await _client.RegisterAsync(step.Subject, schema, "PROTOBUF", references, normalize, cancellationToken).ConfigureAwait(false)
            : await _client.LookupAsync(step.Subject, schema, "PROTOBUF", references, normalize, cancellationToken).ConfigureAwait(false);

        // Older registries answer a registration with its id only: the version comes from a lookup.
        int version = answer.Version
            ?? (await _client.LookupAsync(step.Subject, schema, "PROTOBUF", references, normalize, cancellationToken).ConfigureAwait(false)).Version
            ?? throw new SchemaRegistryRequestException("/subjects/" + step.Subject, 200, null, "the registry gave no version for " + step.Subject, null);
        versions[step.File.Name] = version;
        return answer.Version is null
            ? new RegistrySchema(answer.Schema, answer.SchemaType, answer.References, answer.Id, answer.Guid, answer.Subject ?? step.Subject, version)
            : answer;
    }

    private static void AddImports(FileDescriptor file, bool skipKnownTypes, List<SchemaRegistrationStep> steps, HashSet<string> planned)
    {
        foreach (FileDescriptor import in file.Dependencies)
        {
            if ((skipKnownTypes && KnownTypes.IsSkippedByDefault(import.Name)) || !planned.Add(import.Name))
            {
                continue;
            }

            AddImports(import, skipKnownTypes, steps, planned);
            steps.Add(new SchemaRegistrationStep(import.Name, import, ReferencedImports(import, skipKnownTypes)));
        }
    }

    private static List<string> ReferencedImports(FileDescriptor file, bool skipKnownTypes)
    {
        var names = new List<string>(file.Dependencies.Count);
        foreach (FileDescriptor import in file.Dependencies)
        {
            if (!(skipKnownTypes && KnownTypes.IsSkippedByDefault(import.Name)))
            {
                names.Add(import.Name);
            }
        }

        return names;
    }
}
