using System;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Threading.Tasks;

namespace KafkaProtobuf.Tests.Support;

/// <summary>An <see cref="HttpListener"/> on a free 127.0.0.1 port, for the tests' own HTTP peers (a scripted registry, a token endpoint).</summary>
public static class LoopbackListener
{
    /// <summary>Starts a listener; <paramref name="baseUrl"/> is its <c>http://127.0.0.1:port</c>.</summary>
    public static HttpListener Start(out string baseUrl)
    {
        for (int attempt = 0; ; attempt++)
        {
            var probe = new TcpListener(IPAddress.Loopback, 0);
            probe.Start();
            int port = ((IPEndPoint)probe.LocalEndpoint).Port;
            probe.Stop();
            var listener = new HttpListener();
            baseUrl = "http://127.0.0.1:" + port.ToString(CultureInfo.InvariantCulture);
            listener.Prefixes.Add(baseUrl + "/");
            try
            {
                listener.Start();
                return listener;
            }
            catch (HttpListenerException) when (attempt < 10)
            {
                listener.Close(); // the port was taken between probing and listening; try another
            }
        }
    }

    /// <summary>Answers each request with <paramref name="answer"/>, on the thread pool, until the listener is closed: the task ends then.</summary>
    public static async Task Serve(HttpListener listener, Func<HttpListenerContext, Task> answer)
    {
        while (listener.IsListening)
        {
            HttpListenerContext context;
            try
            {
                context = await listener.GetContextAsync();
            }
            catch (Exception e) when (e is HttpListenerException or ObjectDisposedException or InvalidOperationException)
            {
                return; // closed
            }

            _ = Task.Run(() => answer(context));
        }
    }
}
