// The C surface Herald uses from Debian's hiredis 0.14.1 (the blocking API only). Swift does not
// import the variadic redisCommand, so HeraldRedis calls redisCommandArgv and, for pipelines,
// redisAppendCommandArgv + redisGetReply: both binary-safe (every argument has its length).
#ifndef HERALD_CHIREDIS_SHIM_H
#define HERALD_CHIREDIS_SHIM_H

#include <hiredis/hiredis.h>

#endif
