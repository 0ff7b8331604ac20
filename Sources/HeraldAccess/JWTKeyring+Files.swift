import Foundation
import HeraldCrypto

extension JWTKeyring {
    /// The largest key or JWKS file read: more is not a key file (and /dev/zero does not hang the server).
    static let maximumFileBytes = 1024 * 1024

    /// The keyring of `herald serve`'s flags: each `--jwt-key` file (a PEM public key or certificate,
    /// or else an HS secret: the file's raw bytes without one final line ending) and each `--jwks` file
    /// (a JWKS document), with the `--jwt-audience` and `--jwt-issuer` tokens must name. Throws a
    /// sentence naming the flag, the file and the problem.
    public init(keyFiles: [String], jwksFiles: [String] = [], audience: String? = nil, issuer: String? = nil) throws(JWTConfigurationError)
    {
        var keys: [JWTKey] = []
        for path in keyFiles {
            let bytes = try Self.read(path, flag: "--jwt-key")
            do throws(JWTConfigurationError) {
                keys.append(try Self.key(fromFile: bytes))
            } catch {
                throw JWTConfigurationError("--jwt-key \(path): \(error.description)")
            }
        }
        for path in jwksFiles {
            let bytes = try Self.read(path, flag: "--jwks")
            do throws(JWTConfigurationError) {
                keys += try JWKSet.keys(from: bytes)
            } catch {
                throw JWTConfigurationError("--jwks \(path): \(error.description)")
            }
        }
        guard !keys.isEmpty else { throw JWTConfigurationError("no JWT key: give --jwt-key FILE or --jwks FILE") }
        if audience?.isEmpty == true { throw JWTConfigurationError("--jwt-audience is empty") }
        if issuer?.isEmpty == true { throw JWTConfigurationError("--jwt-issuer is empty") }
        self.init(keys: keys, audience: audience, issuer: issuer)
    }

    /// A `--jwt-key` file's key: PEM when it starts with a PEM boundary (after blank space), else an
    /// HS secret. A PEM file that does not parse is an error, never taken for a secret.
    static func key(fromFile bytes: [UInt8]) throws(JWTConfigurationError) -> JWTKey {
        let start = bytes.drop(while: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D })
        if start.starts(with: Array("-----BEGIN ".utf8)) {
            do throws(PublicKeyError) {
                return JWTKey(.publicKey(try PublicKey(pem: bytes)))
            } catch { throw JWTConfigurationError(error.description) }
        }
        var secret = bytes
        if secret.last == 0x0A { secret.removeLast() }
        if secret.last == 0x0D { secret.removeLast() }
        guard secret.count >= JWTKey.minimumSecretBytes else {
            throw JWTConfigurationError(
                "an HS secret must be at least \(JWTKey.minimumSecretBytes) bytes (this one has \(secret.count)); make one with: openssl rand -base64 48"
            )
        }
        return JWTKey(.secret(secret))
    }

    private static func read(_ path: String, flag: String) throws(JWTConfigurationError) -> [UInt8] {
        let data: Data?
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            data = try handle.read(upToCount: maximumFileBytes + 1)
        } catch {
            throw JWTConfigurationError("\(flag) \(path): cannot be read (\(error.localizedDescription))")
        }
        let bytes = Array(data ?? Data())
        guard !bytes.isEmpty else { throw JWTConfigurationError("\(flag) \(path): the file is empty") }
        guard bytes.count <= maximumFileBytes else {
            throw JWTConfigurationError("\(flag) \(path): larger than \(maximumFileBytes / 1024) KiB, not a key file")
        }
        return bytes
    }
}
