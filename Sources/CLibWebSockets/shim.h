// The C surface Herald uses from libwebsockets 4.1.6. Each helper exists because Swift cannot
// import the macro it wraps.
#ifndef HERALD_CLIBWEBSOCKETS_SHIM_H
#define HERALD_CLIBWEBSOCKETS_SHIM_H

#include <libwebsockets.h>

// LWS_PRE is a macro expression Swift does not import: the headroom lws_write needs before a payload.
static inline size_t herald_lws_pre(void) { return LWS_PRE; }

// The version this binary was built against, for `herald --version` and /healthz.
static inline const char *herald_lws_version(void) { return LWS_LIBRARY_VERSION; }

// The keepalive sweep's timer. lws calls a timer back with its list entry alone, so the owner (the
// server) rides beside the entry, and the callback finds it from the entry's address.
typedef struct herald_timer {
    lws_sorted_usec_list_t sul;
    void *owner;
} herald_timer;

static inline lws_sorted_usec_list_t *herald_timer_entry(herald_timer *timer) { return &timer->sul; }

static inline void *herald_timer_owner(lws_sorted_usec_list_t *sul) {
    return lws_container_of(sul, herald_timer, sul)->owner;
}

// Closes a connection from lws's own loop at its next turn, without a closing handshake (the
// lws_wsi_close macro, which Swift cannot import).
static inline void herald_drop(struct lws *wsi) { lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC); }

#endif
