using KafkaProtobuf.AspNetCore.Json;

namespace KafkaProtobuf.AspNetCore.Redrive;

/// <summary>A dry run's filters, kept so that one click runs exactly what the dry run showed, once.</summary>
internal sealed class RedrivePlan(string id, RedriveRequest request, string filters, long wouldWrite)
{
    public string Id { get; } = id;

    public RedriveRequest Request { get; } = request;

    /// <summary>The filters as the page shows them.</summary>
    public string Filters { get; } = filters;

    /// <summary>The topic and filters: two runs with the same key must not run at once.</summary>
    public string Key => Request.Topic + "\n" + Filters;

    public long WouldWrite { get; } = wouldWrite;

    /// <summary>The run started from this plan, once one was.</summary>
    public string? RunId { get; set; }
}
