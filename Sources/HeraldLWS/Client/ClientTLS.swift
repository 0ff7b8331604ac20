import Foundation

/// Which servers a `ClientContext`'s `wss://` connections trust. Either way the server's certificate
/// must chain to a trusted CA and name the host the URL names (its IP address or DNS name): there is
/// no switch to accept a self-signed, expired or misnamed certificate.
public enum ClientTLS: Sendable, Equatable {
    /// The system's trust store (on Debian, `/etc/ssl/certs` from `ca-certificates`).
    case systemTrust
    /// Only the CA certificates in this PEM file, like curl's `--cacert`: a private CA, or a server's
    /// self-signed certificate given as its own CA.
    case caFile(String)

    /// Checks a `caFile` up front: libwebsockets 4.1.6 only logs a CA file it cannot load and goes on,
    /// so each connection would later fail with a misleading "not trusted". Thread: any.
    func validate() throws(WebSocketClient.Failure) {
        guard case .caFile(let path) = self else { return }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw WebSocketClient.Failure(description: "cannot read the CA file \(path)", kind: .tls)
        }
        guard String(decoding: data, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            throw WebSocketClient.Failure(description: "the CA file \(path) holds no PEM certificate", kind: .tls)
        }
    }
}
