internal import CLibCrypto

extension PublicKey {
    /// An RSA public key from its modulus and public exponent, big-endian unsigned bytes (a JWK's `n`
    /// and `e` once base64url-decoded), built by libcrypto (`EVP_PKEY_fromdata`).
    public convenience init(rsaModulus modulus: [UInt8], exponent: [UInt8]) throws(PublicKeyError) {
        guard !modulus.isEmpty, !exponent.isEmpty else { throw PublicKeyError("an RSA key needs both n and e") }
        guard let builder = OSSL_PARAM_BLD_new() else { throw PublicKeyError("out of memory") }
        defer { OSSL_PARAM_BLD_free(builder) }
        let n = modulus.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        let e = exponent.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        // The builder refers to the numbers until OSSL_PARAM_BLD_to_param copies them.
        defer {
            BN_free(n)
            BN_free(e)
        }
        guard let n, let e, OSSL_PARAM_BLD_push_BN(builder, herald_param_rsa_n(), n) == 1,
            OSSL_PARAM_BLD_push_BN(builder, herald_param_rsa_e(), e) == 1,
            let parameters = OSSL_PARAM_BLD_to_param(builder)
        else { throw PublicKeyError("out of memory") }
        defer { OSSL_PARAM_free(parameters) }
        try self.init(adopting: Self.build("RSA", from: parameters))
    }

    /// An EC public key on `curve` from its point's coordinates, big-endian bytes each exactly as long
    /// as a coordinate of the curve (a JWK's `x` and `y`, RFC 7518 6.2.1.2). libcrypto refuses a
    /// point that is not on the curve.
    public convenience init(curve: EllipticCurve, x: [UInt8], y: [UInt8]) throws(PublicKeyError) {
        let size = curve.coordinateByteCount
        guard x.count == size, y.count == size else {
            throw PublicKeyError("a \(curve.rawValue) key's x and y must be \(size) bytes each (they are \(x.count) and \(y.count))")
        }
        // The uncompressed point encoding of SEC 1 (2.3.3), which libcrypto decodes.
        let point: [UInt8] = [0x04] + x + y
        guard let builder = OSSL_PARAM_BLD_new() else { throw PublicKeyError("out of memory") }
        defer { OSSL_PARAM_BLD_free(builder) }
        // The builder refers to the group's name and the point's bytes until OSSL_PARAM_BLD_to_param
        // copies them: both stay alive around it.
        let parameters = curve.groupName.withCString { groupName in
            point.withUnsafeBytes { pointBytes -> UnsafeMutablePointer<OSSL_PARAM>? in
                guard OSSL_PARAM_BLD_push_utf8_string(builder, herald_param_group_name(), groupName, 0) == 1,
                    OSSL_PARAM_BLD_push_octet_string(builder, herald_param_public_key(), pointBytes.baseAddress, pointBytes.count) == 1
                else { return nil }
                return OSSL_PARAM_BLD_to_param(builder)
            }
        }
        guard let parameters else { throw PublicKeyError("out of memory") }
        defer { OSSL_PARAM_free(parameters) }
        try self.init(adopting: Self.build("EC", from: parameters))
    }

    /// A new EVP_PKEY of `type` ("RSA", "EC") holding the public key `parameters` describe.
    private static func build(_ type: String, from parameters: UnsafeMutablePointer<OSSL_PARAM>) throws(PublicKeyError) -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else { throw PublicKeyError("out of memory") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1,
            EVP_PKEY_fromdata(context, &key, herald_evp_pkey_public_key_selection(), parameters) == 1, let key
        else {
            defer { ERR_clear_error() }
            throw PublicKeyError("libcrypto refuses the key's parameters (\(libcryptoReason()))")
        }
        return key
    }
}
