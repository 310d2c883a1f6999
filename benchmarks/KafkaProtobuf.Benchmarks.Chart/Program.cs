// Reads BenchmarkDotNet's CSV report of PerRecordBenchmarks and draws time and allocation per record, relative to a
// bare ParseFrom of the payload, for every record size: docs/benchmarks.png.
// Usage: dotnet run --project benchmarks/KafkaProtobuf.Benchmarks.Chart -- <report.csv> <output.png> [machine line]
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using ScottPlot;

if (args.Length < 2)
{
    Console.Error.WriteLine("usage: <PerRecordBenchmarks-report.csv> <output.png> [subtitle]");
    return 2;
}

List<Row> rows = ReadReport(args[0]);
string[] order = ["S", "S-header", "M", "L"];
string[] records = rows.Select(r => r.Record).Distinct().OrderBy(r => Array.IndexOf(order, r) is var i && i < 0 ? 99 : i).ToArray();
string[] methods = rows.Select(r => r.Method).Distinct().ToArray();
string baseline = methods.First(m => m.Contains("bare", StringComparison.OrdinalIgnoreCase));
Color[] palette = [Colors.Gray, Colors.SteelBlue, Colors.LightSkyBlue, Colors.IndianRed, Colors.DarkOrange];

var multiplot = new Multiplot();
multiplot.AddPlots(2);
Draw(multiplot.GetPlot(0), "Time per record (bare ParseFrom = 1)", r => r.MeanNs);
Draw(multiplot.GetPlot(1), "Allocated per record (bare ParseFrom = 1)", r => r.AllocatedBytes);
multiplot.Layout = new ScottPlot.MultiplotLayouts.Columns();
multiplot.SavePng(args[1], 1400, 560);
Console.WriteLine($"wrote {args[1]}");
return 0;

void Draw(Plot plot, string title, Func<Row, double> value)
{
    var bars = new List<Bar>();
    double width = 0.8 / methods.Length;
    for (int g = 0; g < records.Length; g++)
    {
        double floor = value(rows.Single(r => r.Record == records[g] && r.Method == baseline));
        for (int m = 0; m < methods.Length; m++)
        {
            Row? row = rows.SingleOrDefault(r => r.Record == records[g] && r.Method == methods[m]);
            if (row is null)
            {
                continue;
            }

            double ratio = value(row) / floor;
            bars.Add(new Bar
            {
                Position = g + ((m - ((methods.Length - 1) / 2.0)) * width),
                Value = ratio,
                Size = width * 0.9,
                FillColor = palette[m % palette.Length],
                Label = ratio >= 1.995 ? $"{ratio:0.#}x" : $"{ratio:0.00}",
            });
        }
    }

    ScottPlot.Plottables.BarPlot plotted = plot.Add.Bars(bars);
    plotted.ValueLabelStyle.FontSize = 9;
    plot.Axes.Bottom.TickGenerator = new ScottPlot.TickGenerators.NumericManual(
        Enumerable.Range(0, records.Length).Select(i => (double)i).ToArray(), records);
    plot.Axes.Margins(bottom: 0, top: 0.15);
    plot.Title(title + (args.Length > 2 ? "\n" + args[2] : string.Empty));
    plot.YLabel("ratio");
    for (int m = 0; m < methods.Length; m++)
    {
        plot.Legend.ManualItems.Add(new LegendItem { LabelText = methods[m], FillColor = palette[m % palette.Length] });
    }

    plot.Legend.Alignment = Alignment.UpperRight;
}

static List<Row> ReadReport(string path)
{
    string[] lines = File.ReadAllLines(path);
    string[] header = SplitCsv(lines[0]);
    int method = Array.IndexOf(header, "Method");
    int record = Array.IndexOf(header, "Record");
    int mean = Array.IndexOf(header, "Mean");
    int allocated = Array.IndexOf(header, "Allocated");
    return lines.Skip(1)
        .Select(SplitCsv)
        .Where(f => f.Length > allocated && f[mean] != "NA")
        .Select(f => new Row(f[method].Trim('\''), f[record], ToNanoseconds(f[mean]), ToBytes(f[allocated])))
        .ToList();
}

static string[] SplitCsv(string line)
{
    var fields = new List<string>();
    var current = new System.Text.StringBuilder();
    bool quoted = false;
    foreach (char c in line)
    {
        if (c == '"')
        {
            quoted = !quoted;
        }
        else if (c == ',' && !quoted)
        {
            fields.Add(current.ToString());
            current.Clear();
        }
        else
        {
            current.Append(c);
        }
    }

    fields.Add(current.ToString());
    return fields.ToArray();
}

static double ToNanoseconds(string text)
{
    (double number, string unit) = Split(text);
    return unit switch { "ns" => number, "us" or "μs" => number * 1e3, "ms" => number * 1e6, "s" => number * 1e9, _ => number };
}

static double ToBytes(string text)
{
    (double number, string unit) = Split(text);
    return unit switch { "KB" => number * 1024, "MB" => number * 1024 * 1024, _ => number };
}

static (double Number, string Unit) Split(string text)
{
    string[] parts = text.Trim().Split(' ', StringSplitOptions.RemoveEmptyEntries);
    return (double.Parse(parts[0], NumberStyles.Any, CultureInfo.InvariantCulture), parts.Length > 1 ? parts[1] : string.Empty);
}

internal sealed record Row(string Method, string Record, double MeanNs, double AllocatedBytes);
