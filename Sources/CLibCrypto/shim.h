// The C surface Herald uses from OpenSSL's libcrypto (Debian 12's 3.0): one-shot HMAC over an EVP
// digest and the constant-time comparison. Only HeraldCrypto imports this module; it hands Swift byte arrays out, never a pointer.
#ifndef HERALD_CLIBCRYPTO_SHIM_H
#define HERALD_CLIBCRYPTO_SHIM_H

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#endif
