using System;
using System.Linq;
using BenchmarkDotNet.Running;

namespace KafkaProtobuf.Benchmarks;

public static class Program
{
    public static void Main(string[] args)
    {
#if CONFLUENT
        // BenchmarkDotNet rebuilds this project in a child process; MSBuild reads environment variables as properties,
        // so this keeps the Confluent benchmarks compiled in there too.
        Environment.SetEnvironmentVariable("CompareWithConfluent", "true");
#endif
        switch (args.FirstOrDefault())
        {
            case "latency":
                Tools.LatencyProbe.Run(args);
                break;
            case "cold":
                Tools.ColdStart.Run(args);
                break;
            case "e2e":
                Tools.EndToEnd.Run(args);
                break;
            case "redrive":
                Tools.RedriveThroughput.Run(args);
                break;
            case "e2e-broker":
                Tools.EndToEnd.RunBroker(args);
                break;
            case "page":
                Tools.OperationsPageLoad.Run(args);
                break;
            case "memory":
                Tools.ReadAheadMemory.Run(args);
                break;
            case "schemas":
                Tools.SchemaCheckTime.Run(args);
                break;
            default:
                BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args);
                break;
        }
    }
}
