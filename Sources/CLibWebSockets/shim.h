// The C surface Herald uses from libwebsockets 4.1.6. Each helper exists because Swift cannot
// import the macro it wraps.
#ifndef HERALD_CLIBWEBSOCKETS_SHIM_H
#define HERALD_CLIBWEBSOCKETS_SHIM_H

#include <libwebsockets.h>

// LWS_PRE is a macro expression Swift does not import: the headroom lws_write needs before a payload.
static inline size_t herald_lws_pre(void) { return LWS_PRE; }

// The version this binary was built against, for `herald --version` and /healthz.
static inline const char *herald_lws_version(void) { return LWS_LIBRARY_VERSION; }

#endif
