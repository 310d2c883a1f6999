using System;
using System.Collections.Generic;
using System.Linq;
using Microsoft.Extensions.DependencyInjection;

namespace KafkaProtobuf.Hosting;

/// <summary>The consumer names registered in one service collection, kept in it, so that two consumers cannot share a name.</summary>
internal sealed class ConsumerNames
{
    private readonly HashSet<string> _names = new(StringComparer.Ordinal);

    public static ConsumerNames In(IServiceCollection services)
    {
        if (services.FirstOrDefault(d => d.ServiceType == typeof(ConsumerNames))?.ImplementationInstance is ConsumerNames names)
        {
            return names;
        }

        names = new ConsumerNames();
        services.AddSingleton(names);
        return names;
    }

    public bool Add(string name) => _names.Add(name);
}
