/*
 * lws-broadcast: the minimal C peer. A libwebsockets 4.1 server in the style of its threads example:
 * producer threads put events in a shared ring under a mutex and call lws_cancel_service(); the
 * service thread, on LWS_CALLBACK_EVENT_WAIT_CANCELLED, asks every connection for a writable
 * callback, and each WRITEABLE callback sends one frame with one lws_write(LWS_WRITE_TEXT).
 *
 * It speaks the part of Herald's protocol the benchmark uses: a snapshot on connect
 * ({"type":"snapshot",...,"seq":S}), and a `start` command ({"type":"start","kind":"ticker",
 * "params":{"rate":R,"duration":D}}) that starts a ticker thread emitting Herald-shaped progress
 * events with a global `seq` and `ts` (wall clock, microseconds since the epoch). Rate 0 is flat out;
 * a producer waits while the ring is full (the slowest client sets the pace, nothing is dropped).
 *
 * usage: lws-broadcast PORT   (0 picks a free one; the first line printed is "port N")
 * Listens on 127.0.0.1 only.
 */
#include <libwebsockets.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RING 8192
#define EVENT_MAX 256
#define MAX_CLIENTS 20000

struct event {
	size_t len;
	char text[EVENT_MAX];
};

struct client {
	struct lws *wsi;
	uint64_t next; /* ring index of the next event to send */
	int slot;
	int snapshot_pending;
	char *rx;
	size_t rx_len;
};

static struct {
	pthread_mutex_t lock;
	struct lws_context *context;
	struct event ring[RING];
	uint64_t head;     /* events ever added; event i is ring[i % RING] and has seq i + 1 */
	uint64_t min_next; /* the slowest client's `next`, refreshed by the service thread */
	int wake_pending;
	int jobs;
	/* service thread only: */
	struct client *clients[MAX_CLIENTS];
	int nclients;
	volatile sig_atomic_t stop;
	/* Set when an event library (libev, libuv) runs the loop instead of lws's poll. */
	int evlib;
} g = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct ticker {
	double rate, duration;
	int job;
};

/* Adds one event; waits while the ring is full. Returns 0 when the server stops. */
static int publish(int job, int64_t completed, int64_t total)
{
	for (;;) {
		pthread_mutex_lock(&g.lock);
		if (g.stop) {
			pthread_mutex_unlock(&g.lock);
			return 0;
		}
		if (g.head - g.min_next < RING - 1 || g.nclients == 0)
			break;
		pthread_mutex_unlock(&g.lock);
		/* With an event library the loop has no per-turn hook: wake it so it recomputes min_next. */
		if (g.evlib)
			lws_cancel_service(g.context);
		usleep(50);
	}
	struct event *e = &g.ring[g.head % RING];
	double fraction = total > 0 ? (double)completed / (double)total : 0;
	int len = snprintf(e->text, EVENT_MAX,
			   "{\"type\":\"progress\",\"seq\":%llu,\"ts\":%lld,\"job\":\"j-peerticker%d\",\"completed\":%lld,"
			   "\"total\":%lld,\"fraction\":%.6g,\"message\":null,\"rate\":null,\"eta\":null}",
			   (unsigned long long)g.head + 1, (long long)now_us(), job, (long long)completed,
			   (long long)total, fraction);
	e->len = (size_t)len;
	g.head++;
	if (g.nclients == 0)
		g.min_next = g.head;
	int wake = !g.wake_pending;
	g.wake_pending = 1;
	pthread_mutex_unlock(&g.lock);
	if (wake)
		lws_cancel_service(g.context);
	return 1;
}

static void *ticker_main(void *arg)
{
	struct ticker t = *(struct ticker *)arg;
	free(arg);
	int64_t total = t.rate > 0 ? (int64_t)(t.rate * t.duration) : 0;
	double start = mono_s();
	for (int64_t i = 1; t.rate == 0 || i <= total; i++) {
		double now = mono_s();
		if (now - start > t.duration + (t.rate > 0 ? 0.1 : 0))
			break;
		if (t.rate > 0) {
			double due = start + (double)i / t.rate;
			if (due > now)
				usleep((useconds_t)((due - now) * 1e6));
		}
		if (!publish(t.job, i, total))
			break;
	}
	return NULL;
}

static double number_after(const char *text, size_t len, const char *key, double fallback)
{
	char buf[1024];
	if (len >= sizeof buf)
		len = sizeof buf - 1;
	memcpy(buf, text, len);
	buf[len] = 0;
	const char *p = strstr(buf, key);
	return p ? atof(p + strlen(key)) : fallback;
}

static void command(const char *text, size_t len)
{
	char buf[64];
	size_t n = len < sizeof buf - 1 ? len : sizeof buf - 1;
	memcpy(buf, text, n);
	buf[n] = 0;
	if (!strstr(buf, "\"type\":\"start\""))
		return;
	struct ticker *t = malloc(sizeof *t);
	if (!t)
		return;
	t->rate = number_after(text, len, "\"rate\":", 20);
	t->duration = number_after(text, len, "\"duration\":", 10);
	if (t->duration <= 0 || t->duration > 3600 || t->rate < 0) {
		free(t);
		return;
	}
	pthread_mutex_lock(&g.lock);
	t->job = g.jobs++;
	pthread_mutex_unlock(&g.lock);
	pthread_t thread;
	if (pthread_create(&thread, NULL, ticker_main, t) == 0)
		pthread_detach(thread);
	else
		free(t);
}

/* The slowest client's place, for the producers' back-pressure. Thread: the service thread. */
static void note_min_next(void)
{
	uint64_t min = UINT64_MAX;
	for (int i = 0; i < g.nclients; i++)
		if (g.clients[i]->next < min)
			min = g.clients[i]->next;
	pthread_mutex_lock(&g.lock);
	g.min_next = g.nclients ? min : g.head;
	pthread_mutex_unlock(&g.lock);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
	struct client *c = user;
	unsigned char buf[LWS_PRE + EVENT_MAX + 128];

	switch (reason) {
	case LWS_CALLBACK_ESTABLISHED:
		if (g.nclients >= MAX_CLIENTS)
			return -1;
		c->wsi = wsi;
		pthread_mutex_lock(&g.lock);
		c->slot = g.nclients;
		g.clients[g.nclients++] = c;
		c->next = g.head;
		if (g.nclients == 1)
			g.min_next = g.head;
		pthread_mutex_unlock(&g.lock);
		c->snapshot_pending = 1;
		lws_callback_on_writable(wsi);
		break;

	case LWS_CALLBACK_CLOSED:
		if (c->wsi) {
			pthread_mutex_lock(&g.lock);
			g.clients[c->slot] = g.clients[--g.nclients];
			g.clients[c->slot]->slot = c->slot;
			pthread_mutex_unlock(&g.lock);
			c->wsi = NULL;
		}
		free(c->rx);
		c->rx = NULL;
		break;

	case LWS_CALLBACK_RECEIVE: {
		/* Whole messages only: gather fragments (commands are small). */
		char *grown = realloc(c->rx, c->rx_len + len + 1);
		if (!grown)
			return -1;
		c->rx = grown;
		memcpy(c->rx + c->rx_len, in, len);
		c->rx_len += len;
		if (c->rx_len > 65536)
			return -1;
		if (lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi)) {
			command(c->rx, c->rx_len);
			c->rx_len = 0;
		}
		break;
	}

	case LWS_CALLBACK_SERVER_WRITEABLE: {
		size_t n;
		int more;
		pthread_mutex_lock(&g.lock);
		if (c->snapshot_pending) {
			c->snapshot_pending = 0;
			n = (size_t)snprintf((char *)buf + LWS_PRE, sizeof buf - LWS_PRE,
					     "{\"type\":\"snapshot\",\"protocol\":1,\"reason\":\"connect\",\"epoch\":\"lws-peer\","
					     "\"seq\":%llu,\"jobs\":[]}",
					     (unsigned long long)c->next);
		} else if (c->next < g.head) {
			struct event *e = &g.ring[c->next % RING];
			memcpy(buf + LWS_PRE, e->text, e->len);
			n = e->len;
			c->next++;
		} else {
			pthread_mutex_unlock(&g.lock);
			break;
		}
		more = c->next < g.head;
		pthread_mutex_unlock(&g.lock);
		if (lws_write(wsi, buf + LWS_PRE, n, LWS_WRITE_TEXT) < (int)n)
			return -1;
		if (more)
			lws_callback_on_writable(wsi);
		break;
	}

	case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
		pthread_mutex_lock(&g.lock);
		g.wake_pending = 0;
		pthread_mutex_unlock(&g.lock);
		if (g.evlib)
			note_min_next();
		lws_callback_on_writable_all_protocol(g.context, lws_get_protocol(wsi));
		break;

	default:
		return lws_callback_http_dummy(wsi, reason, user, in, len);
	}
	return 0;
}

/* The WebSocket protocol first: clients without a subprotocol are bound to protocols[0]. */
static struct lws_protocols protocols[] = {
	{ "bench", callback, sizeof(struct client), 4096, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 },
};

static void on_signal(int sig)
{
	(void)sig;
	/* An event library's loop runs inside lws_service until the context goes: just leave. */
	if (g.evlib)
		_exit(0);
	g.stop = 1;
}

int main(int argc, char **argv)
{
	int port = argc > 1 ? atoi(argv[1]) : 0;
	/* argv[2]: the event loop, poll (lws's default), ev (libev) or uv (libuv): Debian's evlib plugins. */
	const char *loop = argc > 2 ? argv[2] : "poll";
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	lws_set_log_level(LLL_ERR, NULL);

	struct lws_context_creation_info info;
	memset(&info, 0, sizeof info);
	info.port = port;
	info.iface = "127.0.0.1";
	info.protocols = protocols;
	info.gid = -1;
	info.uid = -1;
	info.fd_limit_per_thread = MAX_CLIENTS + 64;
	if (!strcmp(loop, "ev")) {
		info.options |= LWS_SERVER_OPTION_LIBEV;
		g.evlib = 1;
	} else if (!strcmp(loop, "uv")) {
		info.options |= LWS_SERVER_OPTION_LIBUV;
		g.evlib = 1;
	}
	g.context = lws_create_context(&info);
	if (!g.context) {
		fprintf(stderr, "lws-broadcast: cannot listen on 127.0.0.1:%d\n", port);
		return 1;
	}
	printf("port %d\n", lws_get_vhost_listen_port(lws_get_vhost_by_name(g.context, "default")));
	fflush(stdout);
	while (!g.stop) {
		if (lws_service(g.context, 0) < 0)
			break;
		/* After each turn: the slowest client's place, for the producers' back-pressure. */
		note_min_next();
	}
	lws_context_destroy(g.context);
	return 0;
}
