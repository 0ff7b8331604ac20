// The C surface Herald uses from OpenSSL's libcrypto (Debian 12's 3.0): one-shot HMAC over an EVP
// digest, the constant-time comparison, and random bytes, and public-key signature verification (PEM and X.509
// parsing, keys built from their parameters, ECDSA signature encoding). Only HeraldCrypto imports
// this module; it hands Swift byte arrays out, never a pointer.
#ifndef HERALD_CLIBCRYPTO_SHIM_H
#define HERALD_CLIBCRYPTO_SHIM_H

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

// Macros Swift cannot import (expressions over other macros), as values.
static inline int herald_evp_pkey_public_key_selection(void) { return EVP_PKEY_PUBLIC_KEY; }
static inline int herald_evp_pkey_rsa(void) { return EVP_PKEY_RSA; }
static inline int herald_evp_pkey_ec(void) { return EVP_PKEY_EC; }
static inline int herald_rsa_pss_saltlen_digest(void) { return RSA_PSS_SALTLEN_DIGEST; }

// The names of the parameters of a public key, as the static C strings OSSL_PARAM_BLD requires: it
// keeps the name's pointer until OSSL_PARAM_BLD_to_param, longer than a Swift string's C copy lives.
static inline const char *herald_param_rsa_n(void) { return OSSL_PKEY_PARAM_RSA_N; }
static inline const char *herald_param_rsa_e(void) { return OSSL_PKEY_PARAM_RSA_E; }
static inline const char *herald_param_group_name(void) { return OSSL_PKEY_PARAM_GROUP_NAME; }
static inline const char *herald_param_public_key(void) { return OSSL_PKEY_PARAM_PUB_KEY; }

#endif
