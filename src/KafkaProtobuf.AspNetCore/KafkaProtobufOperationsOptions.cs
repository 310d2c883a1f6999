using System;
using System.Collections.Generic;
using System.Linq;
using Confluent.Kafka;
using KafkaProtobuf.Decoding;

namespace KafkaProtobuf.AspNetCore;

/// <summary>
/// What the operations page (<c>MapKafkaProtobufOperations</c>) lets whom see and do, and where it reads dead letters
/// and writer's schemas from.
/// </summary>
public sealed class KafkaProtobufOperationsOptions
{
    /// <summary>
    /// The authorization policy a user needs to see the page and read its API. Required, unless
    /// <see cref="AllowAnonymousOnLoopback"/>: the page is never mapped for anyone by accident.
    /// </summary>
    public string? ReadPolicy { get; set; }

    /// <summary>
    /// The authorization policy a user needs to act (redrive, pause, resume, rewind), on top of <see cref="ReadPolicy"/>.
    /// Unset: the page is read-only (its acting endpoints are not mapped), unless <see cref="AllowAnonymousOnLoopback"/>.
    /// </summary>
    public string? ActPolicy { get; set; }

    /// <summary>
    /// With no policies set: serve the page, acting included, to anyone connecting from this machine (127.0.0.1 or
    /// ::1) by the name <c>localhost</c> or a loopback address, and 403 to every other address and to a request whose
    /// <c>Host</c> names anything else (a web page on a domain that rebinds its name to 127.0.0.1 must not read or act
    /// through the operator's browser): <see cref="LoopbackHostNames"/> names more. For development and samples; a policy,
    /// when set, applies instead (and the application's own host filtering, <c>AllowedHosts</c> in its settings,
    /// guards its names).
    /// </summary>
    public bool AllowAnonymousOnLoopback { get; set; }

    /// <summary>
    /// With <see cref="AllowAnonymousOnLoopback"/>: host names besides <c>localhost</c> and loopback addresses that a
    /// request's <c>Host</c> may name (without a port, compared without regard to case), e.g. this machine's own name.
    /// Name only names that resolve to this machine and nothing else. Not host filtering (ASP.NET Core's
    /// <c>AllowedHosts</c> filters every endpoint, with wildcards): these names only widen the loopback mode.
    /// </summary>
    public IList<string> LoopbackHostNames { get; } = new List<string>();

    /// <summary>
    /// The Kafka client settings the page reads dead letters and redrives with (bootstrap servers, security). Unset:
    /// the page shows no dead letters. Never shown in any response.
    /// </summary>
    public ClientConfig? Kafka { get; set; }

    /// <summary>
    /// The keys dead letters are verified with, and the page's redrives signed with (<see cref="KafkaProtobuf.DeadLetters.ProvenanceKeys"/>):
    /// the keys the hosted consumers sign with. Set it from the application's configuration (a secret store), never in
    /// code; never shown in any response. Unset: dead letters read unchecked, redrives unsigned.
    /// </summary>
    public KafkaProtobuf.DeadLetters.ProvenanceKeys? ProvenanceKeys { get; set; }

    /// <summary>
    /// Dead-letter topics to show besides those of this process's hosted consumers (each consumer's
    /// <c>DeadLetterTopic</c> is shown anyway).
    /// </summary>
    public IList<string> DeadLetterTopics { get; } = new List<string>();

    /// <summary>
    /// Where the writer's schema of a dead letter comes from, by its schema id, as for the deserializers
    /// (<c>WriterSchemaOptions.Source</c>): a <c>RegistryClient</c> of KafkaProtobuf.SchemaRegistry; a
    /// <see cref="SingleFileSchemaSource"/> to read every record in one file (your generated <c>ShopReflection.Descriptor</c>,
    /// or a descriptor set's: <see cref="DescriptorSetFile"/>); any <see cref="ISchemaFileSource"/>. Unset: values are shown
    /// framed but not decoded.
    /// </summary>
    public ISchemaFileSource? WriterSchemaSource { get; set; }

    /// <summary>How dead letters' keys and values are framed, as for the deserializers; default Confluent's.</summary>
    public FramingOptions Framing { get; } = new();

    /// <summary>Dead letters per page (1 to 500); default 50.</summary>
    public int RecordsPerPage { get; set; } = 50;

    /// <summary>
    /// Above this many characters a decoded value (or a key, a header) is shown cut, with its size; default 32,768.
    /// Its raw bytes stay a click away.
    /// </summary>
    public int MaxShownChars { get; set; } = 32_768;

    /// <summary>The most raw bytes one request returns of a key or value; default 1 MiB.</summary>
    public int MaxRawBytes { get; set; } = 1 << 20;

    /// <summary>Refuses settings the page cannot work with, saying which.</summary>
    internal void Validate()
    {
        if (ReadPolicy is null && !AllowAnonymousOnLoopback)
        {
            throw new InvalidOperationException(
                "The KafkaProtobuf operations page needs an authorization policy to read (ReadPolicy), and one to act (ActPolicy) if it may act; "
                + "or, for development, AllowAnonymousOnLoopback = true to serve it to this machine only. It was not mapped.");
        }

        if (RecordsPerPage is < 1 or > 500)
        {
            throw new InvalidOperationException("RecordsPerPage must be 1 to 500 (it was " + RecordsPerPage + ").");
        }

        if (MaxShownChars < 256)
        {
            throw new InvalidOperationException("MaxShownChars must be at least 256 (it was " + MaxShownChars + ").");
        }

        if (MaxRawBytes < 1)
        {
            throw new InvalidOperationException("MaxRawBytes must be at least 1 (it was " + MaxRawBytes + ").");
        }

        if (LoopbackHostNames.Any(h => string.IsNullOrWhiteSpace(h) || h.Contains(':', StringComparison.Ordinal) || h.Contains('*', StringComparison.Ordinal)))
        {
            throw new InvalidOperationException("LoopbackHostNames holds a name that is empty, has a port or a wildcard: give host names only (e.g. \"devbox.local\").");
        }

        if (DeadLetterTopics.Any(string.IsNullOrWhiteSpace))
        {
            throw new InvalidOperationException("A dead-letter topic's name is empty.");
        }
    }
}
