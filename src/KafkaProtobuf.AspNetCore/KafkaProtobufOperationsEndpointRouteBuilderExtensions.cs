using System;
using System.Threading.Tasks;
using KafkaProtobuf;
using KafkaProtobuf.AspNetCore;
using KafkaProtobuf.AspNetCore.DeadLetters;
using KafkaProtobuf.AspNetCore.Endpoints;
using KafkaProtobuf.AspNetCore.Redrive;
using KafkaProtobuf.AspNetCore.Security;
using KafkaProtobuf.Hosting;
using KafkaProtobuf.Decoding;
using KafkaProtobuf.Redrive;
using Microsoft.AspNetCore.Antiforgery;
using Microsoft.AspNetCore.Authorization;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;

namespace Microsoft.AspNetCore.Builder;

/// <summary>Maps the KafkaProtobuf operations page.</summary>
public static class KafkaProtobufOperationsEndpointRouteBuilderExtensions
{
    /// <summary>
    /// Maps the operations page and its JSON API under <paramref name="pattern"/> (e.g. <c>/kafka</c>): this process's
    /// hosted consumers live, dead letters by failure decoded from the writer's schema, redrive after a dry run, pause,
    /// resume and rewind. Reading needs <see cref="KafkaProtobufOperationsOptions.ReadPolicy"/>, acting
    /// <see cref="KafkaProtobufOperationsOptions.ActPolicy"/> and an antiforgery token (<c>AddAntiforgery()</c>); with
    /// neither policy the page is not mapped, unless <see cref="KafkaProtobufOperationsOptions.AllowAnonymousOnLoopback"/>.
    /// Call after <c>UseAuthentication</c>/<c>UseAuthorization</c> are in the pipeline, as for any endpoint with a policy.
    /// </summary>
    /// <param name="endpoints">The application's endpoints.</param>
    /// <param name="pattern">Where the page lives.</param>
    /// <param name="configure">Sets the policies and sources.</param>
    /// <returns>The page's endpoints, for more conventions.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="endpoints"/> or <paramref name="configure"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="pattern"/> is empty.</exception>
    /// <exception cref="InvalidOperationException">
    /// No policy and no loopback-only consent; an option out of range; or acting is possible and antiforgery is not
    /// registered.
    /// </exception>
    public static IEndpointConventionBuilder MapKafkaProtobufOperations(
        this IEndpointRouteBuilder endpoints, string pattern, Action<KafkaProtobufOperationsOptions> configure)
    {
        if (endpoints is null)
        {
            throw new ArgumentNullException(nameof(endpoints));
        }

        if (string.IsNullOrWhiteSpace(pattern))
        {
            throw new ArgumentException("The page needs a path, e.g. \"/kafka\".", nameof(pattern));
        }

        if (configure is null)
        {
            throw new ArgumentNullException(nameof(configure));
        }

        var options = new KafkaProtobufOperationsOptions();
        configure(options);
        options.Validate();

        IServiceProvider services = endpoints.ServiceProvider;
        var access = new Access(options, services.GetService<IAuthorizationService>());
        IAntiforgery? antiforgery = services.GetService<IAntiforgery>();
        if (access.ActsMapped && antiforgery is null)
        {
            throw new InvalidOperationException(
                "The KafkaProtobuf operations page can act (redrive, pause, resume, rewind), which needs antiforgery: call builder.Services.AddAntiforgery().");
        }

        ILogger logger = services.GetService<ILoggerFactory>()?.CreateLogger("KafkaProtobuf.AspNetCore.OperationsPage") ?? NullLogger.Instance;
        IHostApplicationLifetime? lifetime = services.GetService<IHostApplicationLifetime>();
        DeadLetterTopicReader? reader = options.Kafka is null ? null : new DeadLetterTopicReader(options.Kafka, options.ProvenanceKeys);
        lifetime?.ApplicationStopped.Register(() => reader?.Dispose());
        var decoding = new WriterSchemaDecoderOptions { Indented = true, WriterSchemas = { Source = options.WriterSchemaSource } };
        decoding.Framing.SchemaIdLookup = options.Framing.SchemaIdLookup;
        decoding.Framing.MessageIndexEncoding = options.Framing.MessageIndexEncoding;
        decoding.Framing.MessageIndexPresence = options.Framing.MessageIndexPresence;
        decoding.Framing.MessageIndexOrder = options.Framing.MessageIndexOrder;
        WriterSchemaDecoder decoder;
        try
        {
            decoder = new WriterSchemaDecoder(decoding);
        }
        catch (ArgumentException e)
        {
            throw new InvalidOperationException("The operations page's Framing cannot be read with: " + e.Message, e);
        }

        var views = new DeadLetterViews(decoder, options.MaxShownChars);
        RedriveRuns? runs = options.Kafka is null ? null : new RedriveRuns(options.Kafka, options.ProvenanceKeys, logger, lifetime?.ApplicationStopping ?? default);
        var api = new OperationsApi(
            options,
            access,
            services.GetService<KafkaProtobufConsumerOperations>(),
            reader,
            views,
            runs,
            antiforgery,
            services.GetService<IOptions<AntiforgeryOptions>>()?.Value.HeaderName,
            logger);

        RouteGroupBuilder page = endpoints.MapGroup(pattern);
        if (options.ReadPolicy is not null)
        {
            page.RequireAuthorization(options.ReadPolicy);
        }

        // One route for "/kafka" and "/kafka/" (routing matches both): the page's relative links need the slash.
        page.MapGet(string.Empty, Guarded(access, static context =>
        {
            if (!context.Request.Path.Value!.EndsWith('/'))
            {
                context.Response.Redirect(context.Request.PathBase + context.Request.Path + "/");
                return Task.CompletedTask;
            }

            return PageAssets.Serve(context, "index.html");
        }, cacheable: true));
        page.MapGet("/app.js", Guarded(access, static context => PageAssets.Serve(context, "app.js"), cacheable: true));
        page.MapGet("/app.css", Guarded(access, static context => PageAssets.Serve(context, "app.css"), cacheable: true));
        page.MapGet("/api/session", Guarded(access, api.Session));
        page.MapGet("/api/consumers", Guarded(access, api.Consumers));
        page.MapGet("/api/dead-letters/{topic}", Guarded(access, api.DeadLetters));
        page.MapGet("/api/dead-letters/{topic}/{partition}/{offset}/{part}", Guarded(access, api.Raw));
        page.MapGet("/api/redrive/runs", Guarded(access, api.Runs));
        if (access.ActsMapped)
        {
            RouteGroupBuilder acts = page.MapGroup("/api");
            if (options.ActPolicy is not null)
            {
                acts.RequireAuthorization(options.ActPolicy);
            }

            acts.MapPost("/redrive/dry-run", Guarded(access, api.DryRun));
            acts.MapPost("/redrive/runs", Guarded(access, api.StartRun));
            foreach (string action in new[] { "pause", "resume", "rewind" })
            {
                acts.MapPost("/consumers/{name}/" + action, Guarded(access, context => api.PartitionAction(context, action)));
            }
        }

        return page;
    }

    /// <summary>Every endpoint: security headers first, then, in loopback-only mode, other addresses refused.</summary>
    private static RequestDelegate Guarded(Access access, RequestDelegate handler, bool cacheable = false) => context =>
    {
        SecurityHeaders.Apply(context, cacheable);
        if (access.Refused(context))
        {
            return OperationsApi.Error(context, 403, "This page serves this machine only (AllowAnonymousOnLoopback), by the name localhost or a loopback address (or one of LoopbackHostNames).");
        }

        return handler(context);
    };
}
