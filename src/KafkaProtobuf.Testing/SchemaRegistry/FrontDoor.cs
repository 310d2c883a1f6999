using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Security.Cryptography.X509Certificates;
using System.Threading;
using System.Threading.Tasks;

namespace KafkaProtobuf.Testing.SchemaRegistry;

/// <summary>
/// Where the registry's clients connect: a loopback port of the registry's own that relays each connection's bytes to
/// its HTTP listener, through TLS when given a certificate (HttpListener cannot serve TLS on every platform).
/// </summary>
/// <remarks>
/// Closing and opening the door again is the registry's outage, so HttpListener never starts while clients connect:
/// where it is managed code (Linux, macOS), a connection waiting as it starts to accept makes <c>Start</c> throw
/// <see cref="ArgumentNullException"/> and leaves a socket on the port whose next connection fails on the thread pool.
/// </remarks>
internal sealed class FrontDoor : IDisposable
{
    private readonly int _backendPort;
    private readonly X509Certificate2? _certificate;
    private readonly X509Certificate2? _clientAuthority;
    private readonly ConcurrentDictionary<Socket, bool> _connections = new();
    private readonly object _lock = new();
    private Socket? _listener;
    private CancellationTokenSource? _closing;
    private Task _accepting = Task.CompletedTask;
    private int _failedHandshakes;

    /// <summary>A door, closed, to the HTTP listener on <paramref name="backendPort"/>.</summary>
    /// <param name="backendPort">The HTTP listener's port.</param>
    /// <param name="certificate">The server certificate for TLS, or <see langword="null"/> for plain HTTP.</param>
    /// <param name="clientAuthority">The CA a client's certificate must chain to, or <see langword="null"/> for no client certificate.</param>
    internal FrontDoor(int backendPort, X509Certificate2? certificate = null, X509Certificate2? clientAuthority = null)
    {
        _backendPort = backendPort;
        _certificate = certificate;
        _clientAuthority = clientAuthority;
    }

    /// <summary>The port, once it has been opened.</summary>
    internal int Port { get; private set; }

    internal bool IsOpen
    {
        get
        {
            lock (_lock)
            {
                return _listener is not null;
            }
        }
    }

    /// <summary>How many TLS handshakes failed (a client that did not trust the certificate, or had none to show).</summary>
    internal int FailedHandshakes => Volatile.Read(ref _failedHandshakes);

    /// <summary>Opens on a port the system picks and <paramref name="take"/> accepts (one no stopped registry keeps).</summary>
    /// <param name="take">Whether to take a port; called until it says yes.</param>
    internal void OpenOnFreePort(Func<int, bool> take)
    {
        var passedOver = new List<Socket>(); // held until a port is taken, so that the system does not offer them again
        try
        {
            while (true)
            {
                Socket listener = Listen(0);
                int port = ((IPEndPoint)listener.LocalEndPoint!).Port;
                if (take(port))
                {
                    Accept(listener, port);
                    return;
                }

                passedOver.Add(listener);
            }
        }
        finally
        {
            foreach (Socket socket in passedOver)
            {
                socket.Dispose();
            }
        }
    }

    /// <summary>Opens again on <see cref="Port"/>; nothing when open.</summary>
    /// <exception cref="SocketException">The port is taken.</exception>
    internal void OpenAgain()
    {
        if (!IsOpen)
        {
            Accept(Listen(Port), Port);
        }
    }

    /// <summary>Refuses connections from now on and closes those open: a request in flight gets no answer.</summary>
    internal void Close()
    {
        Socket? listener;
        CancellationTokenSource? closing;
        Task accepting;
        lock (_lock)
        {
            listener = _listener;
            closing = _closing;
            accepting = _accepting;
            _listener = null;
            _closing = null;
        }

        if (listener is null)
        {
            return;
        }

        // Cancel before closing the connections: a relay that registers its connection after this sees it cancelled.
        closing!.Cancel();
        listener.Dispose();
        foreach (Socket connection in _connections.Keys)
        {
            connection.Dispose();
        }

        accepting.Wait(TimeSpan.FromSeconds(10));
        closing.Dispose();
    }

    public void Dispose() => Close();

    private static Socket Listen(int port)
    {
        var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            listener.Bind(new IPEndPoint(IPAddress.Loopback, port));
            listener.Listen(512);
            return listener;
        }
        catch
        {
            listener.Dispose();
            throw;
        }
    }

    private void Accept(Socket listener, int port)
    {
        var closing = new CancellationTokenSource();
        lock (_lock)
        {
            Port = port;
            _listener = listener;
            _closing = closing;
            _accepting = Task.Run(() => AcceptAsync(listener, closing.Token));
        }
    }

    private async Task AcceptAsync(Socket listener, CancellationToken closing)
    {
        while (!closing.IsCancellationRequested)
        {
            Socket client;
            try
            {
                client = await listener.AcceptAsync(closing).ConfigureAwait(false);
            }
            catch (Exception e) when (e is SocketException or ObjectDisposedException or OperationCanceledException)
            {
                return;
            }

            _ = Task.Run(() => RelayAsync(client, closing), CancellationToken.None); // a relay started owns the client, whose socket it closes
        }
    }

    private async Task RelayAsync(Socket client, CancellationToken closing)
    {
        using var backend = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        _connections[client] = true;
        _connections[backend] = true;
        Stream? front = null;
        try
        {
            if (closing.IsCancellationRequested)
            {
                return;
            }

            front = new NetworkStream(client, ownsSocket: false);
            if (_certificate is not null)
            {
                var tls = new SslStream(front, leaveInnerStreamOpen: false);
                front = tls;
                if (!await Handshake(tls, closing).ConfigureAwait(false))
                {
                    if (!closing.IsCancellationRequested)
                    {
                        Interlocked.Increment(ref _failedHandshakes);
                    }

                    return;
                }
            }

            await backend.ConnectAsync(IPAddress.Loopback, _backendPort, closing).ConfigureAwait(false);
            using var plain = new NetworkStream(backend, ownsSocket: false);
            Task up = front.CopyToAsync(plain, closing);
            Task down = plain.CopyToAsync(front, closing);
            await Task.WhenAny(up, down).ConfigureAwait(false);
        }
        catch (Exception e) when (e is IOException or SocketException or OperationCanceledException or ObjectDisposedException)
        {
            // The client went away, or the door closed.
        }
        finally
        {
            _connections.TryRemove(client, out _);
            _connections.TryRemove(backend, out _);
            front?.Dispose();
            client.Dispose();
        }
    }

    private async Task<bool> Handshake(SslStream tls, CancellationToken closing)
    {
        try
        {
            await tls.AuthenticateAsServerAsync(
                new SslServerAuthenticationOptions
                {
                    ServerCertificate = _certificate,
                    ClientCertificateRequired = _clientAuthority is not null,
                    RemoteCertificateValidationCallback = (_, certificate, _, _) => _clientAuthority is null || IsIssuedByAuthority(certificate),
                },
                closing).ConfigureAwait(false);
            return true;
        }
        catch (Exception e) when (e is IOException or System.Security.Authentication.AuthenticationException or OperationCanceledException or ObjectDisposedException)
        {
            return false;
        }
    }

    private bool IsIssuedByAuthority(X509Certificate? presented)
    {
        if (presented is null)
        {
            return false;
        }

        using var certificate = new X509Certificate2(presented);
        using var chain = new X509Chain();
        chain.ChainPolicy.RevocationMode = X509RevocationMode.NoCheck;
        chain.ChainPolicy.TrustMode = X509ChainTrustMode.CustomRootTrust;
        chain.ChainPolicy.CustomTrustStore.Add(_clientAuthority!);
        return chain.Build(certificate);
    }
}
