using System;
using System.Collections.Concurrent;
using System.IO;
using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Security.Cryptography.X509Certificates;
using System.Threading;
using System.Threading.Tasks;

namespace KafkaProtobuf.Testing.SchemaRegistry;

/// <summary>
/// HTTPS in front of the registry's plain HTTP listener (which cannot serve TLS on every platform): accepts TLS on a
/// loopback port, with a client certificate required when a CA for them is given, and relays the bytes to the listener.
/// </summary>
internal sealed class TlsFrontEnd : IDisposable
{
    private readonly TcpListener _listener;
    private readonly X509Certificate2 _certificate;
    private readonly X509Certificate2? _clientAuthority;
    private readonly int _backendPort;
    private readonly CancellationTokenSource _stopping = new();
    private readonly ConcurrentDictionary<TcpClient, bool> _connections = new();
    private readonly Task _accepting;

    internal TlsFrontEnd(X509Certificate2 certificate, X509Certificate2? clientAuthority, int backendPort)
    {
        _certificate = certificate;
        _clientAuthority = clientAuthority;
        _backendPort = backendPort;
        _listener = new TcpListener(IPAddress.Loopback, 0);
        _listener.Start();
        Port = ((IPEndPoint)_listener.LocalEndpoint).Port;
        _accepting = Task.Run(AcceptAsync);
    }

    internal int Port { get; }

    /// <summary>How many TLS handshakes failed (a client that did not trust the certificate, or had none to show).</summary>
    internal int FailedHandshakes => Volatile.Read(ref _failedHandshakes);

    private int _failedHandshakes;

    public void Dispose()
    {
        _stopping.Cancel();
        _listener.Stop();
        foreach (TcpClient connection in _connections.Keys)
        {
            connection.Dispose();
        }

        _accepting.Wait(TimeSpan.FromSeconds(10));
        _stopping.Dispose();
    }

    private async Task AcceptAsync()
    {
        while (!_stopping.IsCancellationRequested)
        {
            TcpClient client;
            try
            {
                client = await _listener.AcceptTcpClientAsync(_stopping.Token).ConfigureAwait(false);
            }
            catch (Exception e) when (e is SocketException or ObjectDisposedException or OperationCanceledException)
            {
                return;
            }

            _ = Task.Run(() => RelayAsync(client));
        }
    }

    private async Task RelayAsync(TcpClient client)
    {
        _connections[client] = true;
        try
        {
            using (client)
            using (var tls = new SslStream(client.GetStream(), leaveInnerStreamOpen: false))
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
                        _stopping.Token).ConfigureAwait(false);
                }
                catch (Exception e) when (e is IOException or System.Security.Authentication.AuthenticationException or OperationCanceledException or ObjectDisposedException)
                {
                    Interlocked.Increment(ref _failedHandshakes);
                    return;
                }

                using var backend = new TcpClient();
                await backend.ConnectAsync(IPAddress.Loopback, _backendPort, _stopping.Token).ConfigureAwait(false);
                using NetworkStream plain = backend.GetStream();
                Task up = tls.CopyToAsync(plain, _stopping.Token);
                Task down = plain.CopyToAsync(tls, _stopping.Token);
                await Task.WhenAny(up, down).ConfigureAwait(false);
            }
        }
        catch (Exception e) when (e is IOException or SocketException or OperationCanceledException or ObjectDisposedException)
        {
            // The client or the listener went away.
        }
        finally
        {
            _connections.TryRemove(client, out _);
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
