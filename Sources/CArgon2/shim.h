// The C surface Herald uses from Debian's libargon2 (the reference implementation, 20171227,
// libargon2-dev): encoding an argon2id hash and verifying a password against one. Only HeraldCrypto
// imports this module; it hands Swift strings and byte arrays out, never a pointer.
#ifndef HERALD_CARGON2_SHIM_H
#define HERALD_CARGON2_SHIM_H

#include <argon2.h>

#endif
