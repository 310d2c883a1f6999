using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text.Json;
using System.Text.Json.Serialization.Metadata;
using System.Threading.Tasks;
using Confluent.Kafka;
using KafkaProtobuf.AspNetCore.DeadLetters;
using KafkaProtobuf.AspNetCore.Json;
using KafkaProtobuf.AspNetCore.Redrive;
using KafkaProtobuf.AspNetCore.Security;
using KafkaProtobuf.Redrive;
using KafkaProtobuf.Hosting;
using Microsoft.AspNetCore.Antiforgery;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.Logging;

namespace KafkaProtobuf.AspNetCore.Endpoints;

/// <summary>
/// The page's JSON API: what the page shows (session, consumers, dead letters, runs) and does (dry run, redrive, pause,
/// resume, rewind). Every answer is JSON, every failure too (<c>{"error": ...}</c>): 400 for a request the page would
/// never send, 403 for a user who may not, 404 for what is not there, 409 for an act refused as things stand, 503 when
/// Kafka or the schema source fails (a dependency, never the record's fault).
/// </summary>
internal sealed class OperationsApi(
    KafkaProtobufOperationsOptions options,
    Access access,
    KafkaProtobufConsumerOperations? consumers,
    DeadLetterTopicReader? reader,
    DeadLetterViews views,
    RedriveRuns? runs,
    IAntiforgery? antiforgery,
    string? antiforgeryHeader,
    ILogger logger)
{
    public async Task Session(HttpContext context)
    {
        var session = new SessionView
        {
            User = Access.UserOf(context),
            CanAct = await access.CanActAsync(context).ConfigureAwait(false),
            DeadLetterTopics = DeadLetterTopics(),
            DeadLettersReadable = reader is not null,
            RecordsPerPage = options.RecordsPerPage,
        };
        if (session.CanAct && antiforgery is not null)
        {
            AntiforgeryTokenSet tokens = antiforgery.GetAndStoreTokens(context);
            session.AntiforgeryHeader = antiforgeryHeader;
            session.AntiforgeryToken = tokens.RequestToken;
        }

        await Write(context, 200, session, OperationsJson.Default.SessionView).ConfigureAwait(false);
    }

    public Task Consumers(HttpContext context)
    {
        IReadOnlyList<ConsumerSnapshot> snapshots = consumers?.GetConsumers() ?? [];
        var view = new ConsumersView
        {
            At = DateTimeOffset.UtcNow,
            Consumers = snapshots.Select(c => new ConsumerView
            {
                Name = c.Name,
                GroupId = c.GroupId,
                Topics = c.Topics,
                DeadLetterTopic = c.DeadLetterTopic,
                State = c.State.ToString(),
                Failure = c.Failure is null ? null : BoundedText.Cut(c.Failure, 2000),
                MemberId = c.MemberId,
                RecordsInHandlers = c.RecordsInHandlers,
                FailedAttempts = c.FailedAttempts,
                LastError = c.LastError,
                LastErrorAt = c.LastErrorAt,
                Lag = c.Partitions.Sum(p => p.Lag ?? 0), // partitions whose lag is not known yet count for nothing
                Partitions = c.Partitions.Select(p => new PartitionView
                {
                    Topic = p.Topic,
                    Partition = p.Partition,
                    Position = p.Position,
                    End = p.End,
                    Lag = p.Lag,
                    PausedFor = Enum.GetValues<PartitionPauses>().Where(r => r != PartitionPauses.None && p.Pauses.HasFlag(r)).Select(r => r.ToString()).ToList(),
                    ResumesAt = p.ResumesAt,
                    WaitingFor = p.WaitingFor,
                }).ToList(),
            }).ToList(),
        };
        return Write(context, 200, view, OperationsJson.Default.ConsumersView);
    }

    public async Task DeadLetters(HttpContext context)
    {
        string topic = (string)context.GetRouteValue("topic")!;
        if (reader is null)
        {
            await Error(context, 404, "Dead letters are not readable here: the page has no Kafka settings (KafkaProtobufOperationsOptions.Kafka).").ConfigureAwait(false);
            return;
        }

        if (!DeadLetterTopics().Contains(topic, StringComparer.Ordinal))
        {
            await Error(context, 404, "Not a dead-letter topic of this page.").ConfigureAwait(false);
            return;
        }

        if (!DeadLetterCursor.TryParse(context.Request.Query["before"], out DeadLetterCursor? cursor))
        {
            await Error(context, 400, "'before' is not a cursor (partition:offset,...).").ConfigureAwait(false);
            return;
        }

        try
        {
            DeadLetterWindow? window = await reader.ReadWindowAsync(topic, cursor, options.RecordsPerPage, context.RequestAborted).ConfigureAwait(false);
            if (window is null)
            {
                await Error(context, 404, "The topic does not exist.").ConfigureAwait(false);
                return;
            }

            var page = new DeadLetterPage
            {
                Topic = topic,
                Partitions = window.Partitions.Select(r => new PartitionRange { Partition = r.Partition, Start = r.Start, End = r.End }).ToList(),
                Total = window.Total,
                Count = window.DeadLetters.Count,
                Groups = await views.GroupAsync(window.Groups, context.RequestAborted).ConfigureAwait(false),
                Older = window.Older?.ToString(),
            };
            await Write(context, 200, page, OperationsJson.Default.DeadLetterPage).ConfigureAwait(false);
        }
        catch (KafkaException e)
        {
            await KafkaDidNotAnswer(context, e).ConfigureAwait(false);
        }
    }

    public async Task Raw(HttpContext context)
    {
        string topic = (string)context.GetRouteValue("topic")!;
        string part = (string)context.GetRouteValue("part")!;
        if (reader is null || !DeadLetterTopics().Contains(topic, StringComparer.Ordinal) || part is not ("key" or "value")
            || !int.TryParse((string?)context.GetRouteValue("partition"), NumberStyles.None, CultureInfo.InvariantCulture, out int partition)
            || !long.TryParse((string?)context.GetRouteValue("offset"), NumberStyles.None, CultureInfo.InvariantCulture, out long offset))
        {
            await Error(context, 404, "No such dead letter here.").ConfigureAwait(false);
            return;
        }

        try
        {
            DeadLetter? letter = await reader.ReadAsync(topic, partition, offset, context.RequestAborted).ConfigureAwait(false);
            if (letter is null)
            {
                await Error(context, 404, "The partition has no record at that offset.").ConfigureAwait(false);
                return;
            }

            ConsumeResult<byte[], byte[]> record = letter.Record;
            byte[] bytes = (part == "key" ? record.Message.Key : record.Message.Value) ?? [];
            int shown = Math.Min(bytes.Length, options.MaxRawBytes);
            var raw = new RawView { Size = bytes.Length, Base64 = Convert.ToBase64String(bytes, 0, shown), Cut = shown < bytes.Length };
            await Write(context, 200, raw, OperationsJson.Default.RawView).ConfigureAwait(false);
        }
        catch (KafkaException e)
        {
            await KafkaDidNotAnswer(context, e).ConfigureAwait(false);
        }
    }

    public Task Runs(HttpContext context) =>
        Write(context, 200, new RunsView { Runs = runs?.Runs() ?? [] }, OperationsJson.Default.RunsView);

    public async Task DryRun(HttpContext context)
    {
        if (!await ActingAllowedAsync(context).ConfigureAwait(false))
        {
            return;
        }

        RedriveRequest? request = await Read(context, OperationsJson.Default.RedriveRequest).ConfigureAwait(false);
        if (request is null)
        {
            return;
        }

        if (runs is null || !DeadLetterTopics().Contains(request.Topic, StringComparer.Ordinal))
        {
            await Error(context, 404, "Not a dead-letter topic of this page.").ConfigureAwait(false);
            return;
        }

        try
        {
            DryRunView dryRun = await runs.DryRunAsync(request, context.RequestAborted).ConfigureAwait(false);
            string user = Access.UserOf(context);
            OperationsLog.DryRun(logger, request.Topic, user, dryRun.Filters, dryRun.WouldWrite);
            await Write(context, 200, dryRun, OperationsJson.Default.DryRunView).ConfigureAwait(false);
        }
        catch (ArgumentException e)
        {
            await Error(context, 400, BoundedText.Cut(e.Message, 500)).ConfigureAwait(false);
        }
        catch (InvalidOperationException e)
        {
            await Error(context, 404, BoundedText.Cut(e.Message, 500)).ConfigureAwait(false); // the topic does not exist
        }
        catch (KafkaException e)
        {
            await KafkaDidNotAnswer(context, e).ConfigureAwait(false);
        }
    }

    public async Task StartRun(HttpContext context)
    {
        if (!await ActingAllowedAsync(context).ConfigureAwait(false))
        {
            return;
        }

        RunRequest? request = await Read(context, OperationsJson.Default.RunRequest).ConfigureAwait(false);
        if (request is null)
        {
            return;
        }

        if (runs is null)
        {
            await Error(context, 404, "Dead letters are not readable here.").ConfigureAwait(false);
            return;
        }

        RunView? run = runs.Start(request.PlanId, Access.UserOf(context), out string? refusal);
        if (run is null)
        {
            await Error(context, 409, refusal!).ConfigureAwait(false);
            return;
        }

        await Write(context, 202, run, OperationsJson.Default.RunView).ConfigureAwait(false);
    }

    public async Task PartitionAction(HttpContext context, string action)
    {
        if (!await ActingAllowedAsync(context).ConfigureAwait(false))
        {
            return;
        }

        string name = (string)context.GetRouteValue("name")!;
        PartitionActionRequest? request = await Read(context, OperationsJson.Default.PartitionActionRequest).ConfigureAwait(false);
        if (request is null)
        {
            return;
        }

        if (consumers is null || string.IsNullOrEmpty(request.Topic) || request.Partition < 0 || (action == "rewind" && request.Offset is null))
        {
            await Error(context, 400, "A topic, a partition (and for a rewind, an offset) are needed.").ConfigureAwait(false);
            return;
        }

        PartitionActionResult result = action switch
        {
            "pause" => await consumers.PauseAsync(name, request.Topic, request.Partition, context.RequestAborted).ConfigureAwait(false),
            "resume" => await consumers.ResumeAsync(name, request.Topic, request.Partition, context.RequestAborted).ConfigureAwait(false),
            _ => await consumers.RewindAsync(name, request.Topic, request.Partition, request.Offset!.Value, context.RequestAborted).ConfigureAwait(false),
        };
        string partition = BoundedText.Cut(PositionText.Of(request.Topic, request.Partition, request.Offset ?? Offset.Unset), 300);
        string user = Access.UserOf(context), consumer = BoundedText.Cut(name, 200), outcome = result.ToString();
        OperationsLog.PartitionAction(logger, user, action, consumer, partition, outcome);

        int status = result switch
        {
            PartitionActionResult.Applied => 200,
            PartitionActionResult.UnknownConsumer => 404,
            _ => 409,
        };
        await Write(context, status, new ActionView { Result = result.ToString(), Message = MessageOf(result) }, OperationsJson.Default.ActionView).ConfigureAwait(false);
    }

    /// <summary>Acting needs the act policy (checked again here: the endpoint's own check may be the read policy's) and the antiforgery token.</summary>
    private async Task<bool> ActingAllowedAsync(HttpContext context)
    {
        if (!await access.CanActAsync(context).ConfigureAwait(false))
        {
            await Error(context, 403, "You may look, not act: that needs the page's act policy.").ConfigureAwait(false);
            return false;
        }

        try
        {
            if (antiforgery is not null)
            {
                await antiforgery.ValidateRequestAsync(context).ConfigureAwait(false);
            }
        }
        catch (AntiforgeryValidationException)
        {
            await Error(context, 400, "The antiforgery token is missing or wrong: reload the page.").ConfigureAwait(false);
            return false;
        }

        return true;
    }

    /// <summary>The consumers' dead-letter topics first (the page opens on the first), then the others the options name.</summary>
    private List<string> DeadLetterTopics()
    {
        var topics = (consumers?.GetConsumers() ?? []).Select(c => c.DeadLetterTopic).OfType<string>().Distinct(StringComparer.Ordinal).OrderBy(t => t, StringComparer.Ordinal).ToList();
        topics.AddRange(options.DeadLetterTopics.Where(t => !topics.Contains(t, StringComparer.Ordinal)).Distinct(StringComparer.Ordinal));
        return topics;
    }

    private static string MessageOf(PartitionActionResult result) => result switch
    {
        PartitionActionResult.Applied => "Done.",
        PartitionActionResult.UnknownConsumer => "No consumer of that name runs in this process.",
        PartitionActionResult.NotRunning => "The consumer is not running.",
        PartitionActionResult.NotAssigned => "This member does not hold that partition (another member may).",
        PartitionActionResult.OffsetOutOfRange => "The partition does not have that offset, or it is past the consumer's position (a rewind only goes back).",
        _ => "The consumer's loop is busy in a handler: nothing was done; try again.",
    };

    private static async Task<T?> Read<T>(HttpContext context, JsonTypeInfo<T> type)
        where T : class
    {
        if (!context.Request.HasJsonContentType())
        {
            await Error(context, 415, "Send JSON (Content-Type: application/json).").ConfigureAwait(false);
            return null;
        }

        try
        {
            T? value = await JsonSerializer.DeserializeAsync(context.Request.Body, type, context.RequestAborted).ConfigureAwait(false);
            if (value is null)
            {
                await Error(context, 400, "The request body is empty.").ConfigureAwait(false);
            }

            return value;
        }
        catch (JsonException)
        {
            await Error(context, 400, "The request body is not the JSON this endpoint takes.").ConfigureAwait(false);
            return null;
        }
    }

    /// <summary>Kafka failed (a dependency, never a record's fault): 503 with librdkafka's reason, cut.</summary>
    private static Task KafkaDidNotAnswer(HttpContext context, KafkaException e) =>
        Error(context, 503, "Kafka did not answer: " + BoundedText.Cut(e.Error.Reason, 500));

    internal static Task Error(HttpContext context, int status, string error) =>
        Write(context, status, new ErrorView { Error = error }, OperationsJson.Default.ErrorView);

    private static async Task Write<T>(HttpContext context, int status, T value, JsonTypeInfo<T> type)
    {
        context.Response.StatusCode = status;
        context.Response.ContentType = "application/json; charset=utf-8";
        await JsonSerializer.SerializeAsync(context.Response.Body, value, type, context.RequestAborted).ConfigureAwait(false);
    }
}
