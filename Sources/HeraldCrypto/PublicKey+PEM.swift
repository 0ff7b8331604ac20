internal import CLibCrypto

extension PublicKey {
    /// The largest PEM text read: a certificate chain is a few KiB; more is not a key file.
    public static let maximumPEMBytes = 64 * 1024

    /// A public key from PEM text: a SubjectPublicKeyInfo (`-----BEGIN PUBLIC KEY-----`) or the
    /// first X.509 certificate (`-----BEGIN CERTIFICATE-----`), whose key is taken (the certificate
    /// itself is not checked: the operator names the key to trust). A private key is refused with the
    /// command that gives its public key.
    public convenience init(pem: [UInt8]) throws(PublicKeyError) {
        guard pem.count <= Self.maximumPEMBytes else {
            throw PublicKeyError("PEM text larger than \(Self.maximumPEMBytes / 1024) KiB is not a key")
        }
        let text = String(decoding: pem, as: UTF8.self)
        if text.contains("PRIVATE KEY-----") {
            throw PublicKeyError("this is a private key; give its public key (openssl pkey -in KEY -pubout)")
        }
        let certificate = text.contains("-----BEGIN CERTIFICATE-----")
        guard certificate || text.contains("-----BEGIN PUBLIC KEY-----") else {
            throw PublicKeyError("expected a PEM public key (BEGIN PUBLIC KEY) or certificate (BEGIN CERTIFICATE)")
        }
        let read = pem.withUnsafeBytes { bytes in
            Result { () throws(PublicKeyError) -> OpaquePointer in
                // The memory BIO reads `pem` in place: it lives only inside this closure.
                guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { throw PublicKeyError("out of memory") }
                defer { BIO_free(bio) }
                if certificate {
                    guard let x509 = PEM_read_bio_X509(bio, nil, nil, nil) else {
                        defer { ERR_clear_error() }
                        throw PublicKeyError("not a valid X.509 certificate (\(Self.libcryptoReason()))")
                    }
                    defer { X509_free(x509) }
                    // X509_get_pubkey gives a new reference, which `PublicKey` then owns.
                    guard let key = X509_get_pubkey(x509) else {
                        defer { ERR_clear_error() }
                        throw PublicKeyError("the certificate's key cannot be read (\(Self.libcryptoReason()))")
                    }
                    return key
                }
                guard let key = PEM_read_bio_PUBKEY(bio, nil, nil, nil) else {
                    defer { ERR_clear_error() }
                    throw PublicKeyError("not a valid PEM public key (\(Self.libcryptoReason()))")
                }
                return key
            }
        }
        try self.init(adopting: read.get())
    }
}
