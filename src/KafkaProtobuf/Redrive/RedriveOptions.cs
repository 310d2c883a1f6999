using System;
using System.Globalization;
using System.Linq;

namespace KafkaProtobuf.Redrive;

/// <summary>
/// What a redrive reads, which dead letters it writes back and where, and how fast. Every filter that is set must match
/// for a dead letter to be written; the others are left where they are (and counted).
/// </summary>
public sealed class RedriveOptions
{
    /// <summary>The dead-letter topic to read. Required.</summary>
    public string DeadLetterTopic { get; set; } = string.Empty;

    /// <summary>
    /// The consumer group that keeps the run's progress, so a run that stops resumes where it stopped; default
    /// <c>kafkaprotobuf-redrive-{DeadLetterTopic}</c>, and with filters set, that and a hash of them (a filtered run
    /// moves past what it skips: another filter has progress of its own). A dead letter's offset is committed only once
    /// what it wrote is acknowledged. Two runs on one group at once would redrive records twice: run one at a time.
    /// </summary>
    public string? GroupId { get; set; }

    /// <summary>Write everything here instead of each record's source topic (explicitly only: the default is the source).</summary>
    public string? TargetTopic { get; set; }

    /// <summary>Write each record to its source partition (<c>kafkaprotobuf.source.partition</c>) rather than where the producer's partitioner puts its key.</summary>
    public bool KeepSourcePartition { get; set; }

    /// <summary>Only dead letters whose record came from this topic.</summary>
    public string? SourceTopic { get; set; }

    /// <summary>Only dead letters with this error code (a <see cref="FrameErrorCode"/> name, or an exception's type for a handler's failure).</summary>
    public string? ErrorCode { get; set; }

    /// <summary>Only dead letters of this component: <c>key</c>, <c>value</c> or <c>handler</c>.</summary>
    public string? Component { get; set; }

    /// <summary>Only dead letters written at or after this time (their timestamp).</summary>
    public DateTimeOffset? Since { get; set; }

    /// <summary>Only dead letters written before this time.</summary>
    public DateTimeOffset? Until { get; set; }

    /// <summary>Only records at or after this offset of their source partition.</summary>
    public long? FromSourceOffset { get; set; }

    /// <summary>Only records before this offset of their source partition.</summary>
    public long? ToSourceOffset { get; set; }

    /// <summary>Only records with this key, byte for byte.</summary>
    public byte[]? Key { get; set; }

    /// <summary>A record redriven this many times already is skipped unless <see cref="Force"/>; default 3.</summary>
    public int MaxRedrives { get; set; } = 3;

    /// <summary>Redrive records past <see cref="MaxRedrives"/> too.</summary>
    public bool Force { get; set; }

    /// <summary>Write nothing and commit nothing: report what would be written (the dry run of <see cref="DeadLetterRedrive.PlanAsync"/>, whose plan then writes exactly that).</summary>
    [Obsolete("Plan instead: DeadLetterRedrive.PlanAsync is the dry run, and its plan's RunAsync writes exactly what it showed, once. DeadLetterRedrive.Run with DryRun runs that dry run and keeps only its summary.")]
    public bool DryRun { get; set; }

    /// <summary>At most this many records written a second; <see langword="null"/>: as fast as the broker takes them.</summary>
    public double? RecordsPerSecond { get; set; }

    /// <summary>
    /// The keys dead letters are verified with, and the redrive's own block is signed with
    /// (<see cref="DeadLetters.ProvenanceKeys"/>): give the keys the consumers that wrote the dead letters sign with.
    /// Null (the default): dead letters read unchecked, the redrive's block unsigned.
    /// </summary>
    public DeadLetters.ProvenanceKeys? ProvenanceKeys { get; set; }

    /// <summary>The run's id, written in <see cref="RedriveHeaderNames.Run"/>; default a new GUID.</summary>
    public string RunId { get; set; } = Guid.NewGuid().ToString("N");

    internal string EffectiveGroupId => GroupId ?? "kafkaprotobuf-redrive-" + DeadLetterTopic + (Filters.Length == 0 ? string.Empty : "-" + Fnv1a(Filters).ToString("x8", CultureInfo.InvariantCulture));

    /// <summary>The filters set, as text (empty: none).</summary>
    internal string Filters => string.Join(
        "\n",
        new[]
        {
            SourceTopic is null ? null : "source=" + SourceTopic,
            ErrorCode is null ? null : "code=" + ErrorCode,
            Component is null ? null : "component=" + Component,
            Since is null ? null : "since=" + Since.Value.UtcTicks.ToString(CultureInfo.InvariantCulture),
            Until is null ? null : "until=" + Until.Value.UtcTicks.ToString(CultureInfo.InvariantCulture),
            FromSourceOffset is null ? null : "from=" + FromSourceOffset.Value.ToString(CultureInfo.InvariantCulture),
            ToSourceOffset is null ? null : "to=" + ToSourceOffset.Value.ToString(CultureInfo.InvariantCulture),
            Key is null ? null : "key=" + Convert.ToBase64String(Key),
        }.Where(f => f is not null));

    /// <summary>
    /// The filters as one line for people, <c>source=orders, code=UnknownMagicByte, since=2026-11-28T10:00:00.0000000+00:00</c>,
    /// or <c>none</c> (a key as its UTF-8 text, or <c>key(base64)=…</c> when it is not text). Not <see cref="Filters"/>,
    /// which names the progress group and so never changes.
    /// </summary>
    internal string FiltersLine
    {
        get
        {
            string line = string.Join(
                ", ",
                new[]
                {
                    SourceTopic is null ? null : "source=" + SourceTopic,
                    ErrorCode is null ? null : "code=" + ErrorCode,
                    Component is null ? null : "component=" + Component,
                    Since is null ? null : "since=" + Since.Value.ToString("O", CultureInfo.InvariantCulture),
                    Until is null ? null : "until=" + Until.Value.ToString("O", CultureInfo.InvariantCulture),
                    FromSourceOffset is null ? null : "from-offset=" + FromSourceOffset.Value.ToString(CultureInfo.InvariantCulture),
                    ToSourceOffset is null ? null : "to-offset=" + ToSourceOffset.Value.ToString(CultureInfo.InvariantCulture),
                    Key is null ? null : KeyText(Key),
                }.Where(f => f is not null));
            return line.Length == 0 ? "none" : line;
        }
    }

    private static string KeyText(byte[] key)
    {
        try
        {
            return "key=" + new System.Text.UTF8Encoding(false, throwOnInvalidBytes: true).GetString(key);
        }
        catch (System.Text.DecoderFallbackException)
        {
            return "key(base64)=" + Convert.ToBase64String(key);
        }
    }

    /// <summary>A copy, as a plan keeps it (what it ran with does not change after it).</summary>
    internal RedriveOptions Copy(bool dryRun) => new()
    {
        DeadLetterTopic = DeadLetterTopic,
        GroupId = GroupId,
        TargetTopic = TargetTopic,
        KeepSourcePartition = KeepSourcePartition,
        SourceTopic = SourceTopic,
        ErrorCode = ErrorCode,
        Component = Component,
        Since = Since,
        Until = Until,
        FromSourceOffset = FromSourceOffset,
        ToSourceOffset = ToSourceOffset,
        Key = Key is null ? null : (byte[])Key.Clone(),
        MaxRedrives = MaxRedrives,
        Force = Force,
#pragma warning disable CS0618 // the run's own flag: a plan's dry run, or its run
        DryRun = dryRun,
#pragma warning restore CS0618
        RecordsPerSecond = RecordsPerSecond,
        RunId = RunId,
        ProvenanceKeys = ProvenanceKeys,
    };

    /// <summary>A stable hash (FNV-1a, 32 bits) of text: the same filters give the same group in every run and process.</summary>
    private static uint Fnv1a(string text)
    {
        uint hash = 2166136261;
        foreach (char c in text)
        {
            hash = (hash ^ c) * 16777619;
        }

        return hash;
    }

    internal void Validate() =>
        new OptionProblems(nameof(RedriveOptions))
            .Require(!string.IsNullOrWhiteSpace(DeadLetterTopic), nameof(DeadLetterTopic), DeadLetterTopic, "a topic name")
            .Require(GroupId is null || GroupId.Length > 0, nameof(GroupId), GroupId, "null or a group id")
            .Require(TargetTopic is null || TargetTopic.Length > 0, nameof(TargetTopic), TargetTopic, "null or a topic name")
            .Require(MaxRedrives >= 0, nameof(MaxRedrives), MaxRedrives, "0 or more")
            .Require(RecordsPerSecond is null || RecordsPerSecond > 0, nameof(RecordsPerSecond), RecordsPerSecond, "null or more than 0")
            .Require(!string.IsNullOrEmpty(RunId), nameof(RunId), RunId, "an id")
            .Refuse(TargetTopic is not null && TargetTopic == DeadLetterTopic, "TargetTopic is the dead-letter topic itself: every record written would be read again.")
            .ThrowIfAny("options");
}
