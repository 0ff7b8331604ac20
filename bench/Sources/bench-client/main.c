/*
 * bench-client: a WebSocket load generator for Herald and its peers (bench/peers/).
 *
 * N connections (1..20,000) served by this process's only thread: no thread per connection. Two
 * engines: `raw` (the default), nonblocking sockets on one epoll with the RFC 6455 client side written
 * out below, and `lws`, one libwebsockets 4.1 client context. Both measure the same way; lws 4.1's
 * client spends most of its time inside the library and tops out near 0.8 M messages/s on one core
 * here, so the raw engine is what lets a 2-core machine tell the server's limit from the client's. It opens them (at most --inflight handshakes at a time), then
 * optionally sends --start messages on connection 0 (a Herald `start` command: the peers understand
 * the same one), and for --duration seconds counts every message, its bytes, the latency from the
 * event's `ts` (the server's wall clock, microseconds since the epoch; same machine) to its receipt,
 * and gaps in `seq` per connection. With --server-pid it also reads the server's CPU time, RSS and
 * peak RSS (VmHWM) from /proc.
 *
 * Prints "connected N" on stdout once the connect phase is over, then one JSON object on stdout at
 * the end; a human summary goes to stderr unless --quiet.
 *
 * --url-file FILE gives each connection a URL of its own (connection i takes line i mod the lines:
 * a scoped credential each, `?t=TOKEN`); every line names the same host and port. --scoped is for
 * connections that see only some jobs (docs/security.md, scoped streams): their seq has holes by
 * design, so gaps are counted per job instead, from `completed` in each job's progress events (the
 * ticker counts 1, 2, 3...), and the JSON adds the progress deliveries and the time from the first to
 * the last of them (bench/scoped).
 *
 * Every loop is bounded: connect phase by --connect-timeout, measurement by --duration plus --tail.
 * It only connects where --url says; bench/run only ever gives it 127.0.0.1.
 */
#define _GNU_SOURCE
#include <libwebsockets.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

enum conn_state { C_IDLE, C_CONNECTING, C_OPEN, C_CLOSED, C_FAILED };

struct conn {
	struct lws *wsi;
	int index;
	enum conn_state state;
	int64_t connect_started_us;
	int64_t last_seq; /* -1: none seen yet */
	unsigned char *rx;
	size_t rx_len, rx_cap;
	int pending_sends; /* messages still to send (on open, or the start commands) */
	const char *pending_text;
	/* raw engine only */
	int fd;
	unsigned char *in; /* bytes read, not yet parsed */
	size_t in_len, in_cap;
	unsigned char *out; /* bytes to send, from out_off */
	size_t out_len, out_off;
	int fragmented; /* a message's first fragment was seen; the rest goes to rx */
	const char *path; /* this connection's path and query */
	/* --scoped: the last `completed` seen per job, for the jobs this connection has seen */
	struct job_place *jobs;
	int jobs_n;
	uint64_t progress_events; /* --scoped: progress events measured on this connection */
};

/* --scoped: where one job's progress stood on one connection. */
#define JOB_ID_MAX 24
#define JOBS_PER_CONN_MAX 32
struct job_place {
	char id[JOB_ID_MAX + 1];
	int64_t completed;
};

/* Latency histogram: 1 us buckets below 1 s, then 1 ms buckets up to 120 s, then overflow. */
#define LAT_FINE 1000000
#define LAT_BUCKETS (LAT_FINE + 120000)

static int64_t lat_bucket(int64_t us) { return us < LAT_FINE ? us : LAT_FINE + (us - LAT_FINE) / 1000; }
static int64_t lat_value(int64_t bucket) { return bucket < LAT_FINE ? bucket : LAT_FINE + (bucket - LAT_FINE) * 1000; }

static struct {
	/* options */
	char host[256];
	int port;
	char path[3072];
	int n;
	const char *send_on_open;
	const char *start_text;
	int starts;
	double duration;
	double tail;
	double quiet_after;
	double hold;
	double connect_timeout;
	int inflight;
	int server_pid;
	int quiet;
	int stop_on_stdin_eof;
	const char *per_event_path;
	const char *url_file;
	int scoped;
	const char *ignore_job; /* --scoped: a job whose progress is not counted (bench/scoped's gate) */
	char **paths; /* --url-file: one path per line */
	int paths_n;

	/* state */
	struct lws_context *context;
	struct conn *conns;
	int initiated, opened, failed, dropped, closed_by_us;
	int phase; /* 0 connecting, 1 settling, 2 measuring, 3 done */
	int64_t phase_started_us, connect_phase_us, measure_started_us, deadline_us, finished_us;
	int64_t first_msg_us, last_msg_us;
	uint64_t messages, bytes, messages_before, bytes_before, events_with_ts;
	uint64_t gaps, gap_events, out_of_order, resyncs, snapshots;
	/* --scoped: seq holes (expected), progress events measured, first and last of them, jobs a
	 * connection saw beyond JOBS_PER_CONN_MAX (not checked) */
	uint64_t seq_holes, progress_events, progress_before, jobs_untracked;
	int64_t first_progress_us, last_progress_us;
	uint32_t *lat;
	uint64_t lat_overflow;
	int64_t lat_max, lat_min;
	int64_t *connect_times; /* us per opened connection */
	int connect_times_n;
	char first_error[256];
	long rss_before_kb, rss_connected_kb, rss_end_kb, hwm_kb;
	unsigned long long server_ticks_start, server_ticks_end;
	struct rusage usage_start, usage_end;
	int interrupted;
	lws_sorted_usec_list_t tick;
	int raw; /* 1: our own epoll client; 0: libwebsockets */
	int epoll_fd;
	struct sockaddr_in address;
	/* --per-event: one row per numbered event measured, indexed by seq - first_seq. */
	struct per_event *per_event;
	int64_t per_event_first_seq;
} g;

/* What the connections saw of one event: how many got it, the fastest and the slowest, the sum (for
 * the mean), and when the first and the last copy arrived. Shows whether a slow delivery is one
 * event late everywhere (the server was busy) or the far end of one event's fan-out. */
struct per_event {
	uint32_t count;
	char kind; /* 'p' progress, 'j' job, 'o' other */
	int64_t min_us, max_us, sum_us, first_arrival_us, last_arrival_us;
};
#define PER_EVENT_MAX (1 << 20)

static void note_per_event(int64_t seq, int64_t lat, int64_t now, const unsigned char *msg, size_t len)
{
	if (!g.per_event) {
		g.per_event = calloc(PER_EVENT_MAX, sizeof *g.per_event);
		if (!g.per_event) {
			g.per_event_path = NULL;
			return;
		}
		g.per_event_first_seq = seq;
	}
	int64_t i = seq - g.per_event_first_seq;
	if (i < 0 || i >= PER_EVENT_MAX)
		return;
	struct per_event *e = &g.per_event[i];
	if (!e->count) {
		e->min_us = e->max_us = lat;
		e->first_arrival_us = now;
		e->kind = memmem(msg, len > 40 ? 40 : len, "\"progress\"", 10) ? 'p'
			  : memmem(msg, len > 40 ? 40 : len, "\"job\"", 5)    ? 'j'
										   : 'o';
	}
	e->count++;
	e->sum_us += lat;
	if (lat < e->min_us)
		e->min_us = lat;
	if (lat > e->max_us)
		e->max_us = lat;
	if (now < e->first_arrival_us)
		e->first_arrival_us = now;
	if (now > e->last_arrival_us)
		e->last_arrival_us = now;
}

static void write_per_event(void)
{
	FILE *f = fopen(g.per_event_path, "w");
	if (!f) {
		fprintf(stderr, "bench-client: cannot write %s\n", g.per_event_path);
		return;
	}
	fprintf(f, "seq kind count min_us mean_us max_us first_arrival_us spread_us\n");
	for (int64_t i = 0; i < PER_EVENT_MAX; i++) {
		struct per_event *e = &g.per_event[i];
		if (!e->count)
			continue;
		fprintf(f, "%" PRId64 " %c %u %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 "\n",
			g.per_event_first_seq + i, e->kind, e->count, e->min_us, e->sum_us / e->count, e->max_us,
			e->first_arrival_us, e->last_arrival_us - e->first_arrival_us);
	}
	fclose(f);
}

static int64_t now_real_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t now_mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* VmRSS / VmHWM of the server, in kB; -1 if unreadable. */
static long proc_status_kb(int pid, const char *field)
{
	char path[64], line[256];
	long value = -1;
	size_t len = strlen(field);
	snprintf(path, sizeof path, "/proc/%d/status", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, field, len) && line[len] == ':') {
			value = strtol(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return value;
}

/* utime + stime of the server, in clock ticks. */
static unsigned long long proc_cpu_ticks(int pid)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t got = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[got] = 0;
	/* The command name may hold spaces: fields restart after the last ')'. */
	char *p = strrchr(buf, ')');
	if (!p)
		return 0;
	p += 2; /* field 3, state */
	unsigned long long utime = 0, stime = 0;
	for (int field = 3; field <= 15 && p; field++) {
		if (field == 14)
			utime = strtoull(p, NULL, 10);
		if (field == 15)
			stime = strtoull(p, NULL, 10);
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	return utime + stime;
}

/* Finds `"key":` in the first `limit` bytes and parses the integer after it. */
static int find_int(const unsigned char *msg, size_t len, const char *key, size_t limit, int64_t *out)
{
	size_t klen = strlen(key);
	if (len > limit)
		len = limit;
	const unsigned char *p = memmem(msg, len, key, klen);
	if (!p)
		return 0;
	p += klen;
	const unsigned char *end = msg + len;
	int negative = 0;
	if (p < end && *p == '-') {
		negative = 1;
		p++;
	}
	if (p >= end || *p < '0' || *p > '9')
		return 0;
	int64_t v = 0;
	while (p < end && *p >= '0' && *p <= '9')
		v = v * 10 + (*p++ - '0');
	*out = negative ? -v : v;
	return 1;
}

/* Finds `"key":"` in the first `limit` bytes and copies the string after it (at most `cap` bytes,
 * no escapes: job ids have none). */
static int find_string(const unsigned char *msg, size_t len, const char *key, size_t limit, char *out, size_t cap)
{
	size_t klen = strlen(key);
	if (len > limit)
		len = limit;
	const unsigned char *p = memmem(msg, len, key, klen);
	if (!p)
		return 0;
	p += klen;
	const unsigned char *end = msg + len;
	size_t n = 0;
	while (p < end && *p != '"' && n < cap)
		out[n++] = (char)*p++;
	if (p >= end || *p != '"')
		return 0;
	out[n] = 0;
	return 1;
}

/* --scoped: a progress event's `completed` against the last one of its job on this connection. */
static void note_job_progress(struct conn *c, const unsigned char *msg, size_t len)
{
	char id[JOB_ID_MAX + 1];
	int64_t completed;
	if (len < 20 || memcmp(msg, "{\"type\":\"progress\"", 18))
		return;
	if (!find_string(msg, len, "\"job\":\"", 128, id, JOB_ID_MAX) || !find_int(msg, len, "\"completed\":", 200, &completed))
		return;
	if (g.ignore_job && !strcmp(id, g.ignore_job))
		return;
	if (g.phase < 2)
		g.progress_before++;
	else if (g.phase == 2) {
		int64_t now = now_mono_us();
		if (!g.first_progress_us)
			g.first_progress_us = now;
		g.last_progress_us = now;
		g.progress_events++;
		c->progress_events++;
	}
	struct job_place *place = NULL;
	for (int i = 0; i < c->jobs_n; i++)
		if (!strcmp(c->jobs[i].id, id)) {
			place = &c->jobs[i];
			break;
		}
	if (!place) {
		if (!c->jobs)
			c->jobs = calloc(JOBS_PER_CONN_MAX, sizeof *c->jobs);
		if (!c->jobs || c->jobs_n == JOBS_PER_CONN_MAX) {
			g.jobs_untracked++;
			return;
		}
		place = &c->jobs[c->jobs_n++];
		strcpy(place->id, id);
		place->completed = completed;
		return;
	}
	if (completed > place->completed + 1) {
		g.gaps++;
		g.gap_events += (uint64_t)(completed - place->completed - 1);
	} else if (completed <= place->completed)
		g.out_of_order++;
	place->completed = completed;
}

static void on_message(struct conn *c, const unsigned char *msg, size_t len)
{
	int64_t now = now_real_us();
	g.messages++;
	g.bytes += len;
	if (g.phase < 2) {
		g.messages_before++;
		g.bytes_before += len;
	}
	else {
		if (!g.first_msg_us)
			g.first_msg_us = now_mono_us();
		g.last_msg_us = now_mono_us();
	}
	int64_t seq, ts;
	/* A snapshot (re)sets the connection's place in the stream. */
	if (len > 18 && !memcmp(msg, "{\"type\":\"snapshot\"", 18)) {
		g.snapshots++;
		if (memmem(msg, len > 200 ? 200 : len, "\"reason\":\"resync\"", 17))
			g.resyncs++;
		if (find_int(msg, len, "\"seq\":", 300, &seq))
			c->last_seq = seq;
		c->jobs_n = 0; /* the snapshot holds each job's progress: count on from the next event */
		return;
	}
	if (!find_int(msg, len, "\"seq\":", 64, &seq))
		return; /* a reply (accepted, pong): not numbered */
	if (c->last_seq >= 0) {
		if (seq > c->last_seq + 1) {
			if (g.scoped)
				g.seq_holes++;
			else {
				g.gaps++;
				g.gap_events += (uint64_t)(seq - c->last_seq - 1);
			}
		} else if (seq <= c->last_seq)
			g.out_of_order++;
	}
	c->last_seq = seq;
	if (g.scoped)
		note_job_progress(c, msg, len);
	if (g.phase == 2 && find_int(msg, len, "\"ts\":", 96, &ts)) {
		int64_t lat = now - ts;
		if (lat < 0)
			lat = 0;
		g.events_with_ts++;
		if (g.per_event_path)
			note_per_event(seq, lat, now, msg, len);
		if (lat_bucket(lat) < LAT_BUCKETS)
			g.lat[lat_bucket(lat)]++;
		else
			g.lat_overflow++;
		if (lat > g.lat_max)
			g.lat_max = lat;
		if (g.lat_min < 0 || lat < g.lat_min)
			g.lat_min = lat;
	}
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
	struct conn *c = wsi ? (struct conn *)lws_get_opaque_user_data(wsi) : NULL;
	(void)user;

	switch (reason) {
	case LWS_CALLBACK_CLIENT_ESTABLISHED:
		if (!c)
			break;
		c->state = C_OPEN;
		g.opened++;
		if (g.connect_times_n < g.n)
			g.connect_times[g.connect_times_n++] = now_mono_us() - c->connect_started_us;
		if (g.send_on_open) {
			c->pending_text = g.send_on_open;
			c->pending_sends = 1;
			lws_callback_on_writable(wsi);
		}
		break;

	case LWS_CALLBACK_CLIENT_RECEIVE:
		if (!c)
			break;
		if (lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi) && !c->rx_len) {
			on_message(c, in, len);
			break;
		}
		if (c->rx_len + len > c->rx_cap) {
			size_t cap = c->rx_cap ? c->rx_cap : 4096;
			while (cap < c->rx_len + len)
				cap *= 2;
			unsigned char *grown = realloc(c->rx, cap);
			if (!grown)
				return -1;
			c->rx = grown;
			c->rx_cap = cap;
		}
		memcpy(c->rx + c->rx_len, in, len);
		c->rx_len += len;
		if (lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi)) {
			on_message(c, c->rx, c->rx_len);
			c->rx_len = 0;
		}
		break;

	case LWS_CALLBACK_CLIENT_WRITEABLE: {
		if (!c || !c->pending_sends || !c->pending_text)
			break;
		size_t tlen = strlen(c->pending_text);
		unsigned char *buf = malloc(LWS_PRE + tlen);
		if (!buf)
			return -1;
		memcpy(buf + LWS_PRE, c->pending_text, tlen);
		int written = lws_write(wsi, buf + LWS_PRE, tlen, LWS_WRITE_TEXT);
		free(buf);
		if (written < (int)tlen)
			return -1;
		if (--c->pending_sends > 0)
			lws_callback_on_writable(wsi);
		break;
	}

	case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
		if (!c)
			break;
		if (!g.first_error[0])
			snprintf(g.first_error, sizeof g.first_error, "%.*s", in ? (int)len : 0,
				 in ? (const char *)in : "");
		if (!g.first_error[0])
			snprintf(g.first_error, sizeof g.first_error, "connection error");
		if (c->state == C_OPEN)
			g.dropped++;
		else
			g.failed++;
		c->state = C_FAILED;
		c->wsi = NULL;
		break;

	case LWS_CALLBACK_CLIENT_CLOSED:
		if (!c)
			break;
		if (c->state == C_OPEN) {
			if (g.phase < 3)
				g.dropped++;
			else
				g.closed_by_us++;
		}
		c->state = C_CLOSED;
		c->wsi = NULL;
		break;

	default:
		break;
	}
	return 0;
}

static const struct lws_protocols protocols[] = {
	{ "bench", callback, 0, 16384, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 },
};

static void lws_start_connect(struct conn *c)
{
	struct lws_client_connect_info info;
	memset(&info, 0, sizeof info);
	info.context = g.context;
	info.address = g.host;
	info.port = g.port;
	info.path = c->path;
	info.host = g.host;
	info.ietf_version_or_minus_one = -1;
	info.local_protocol_name = "bench";
	info.opaque_user_data = c;
	info.pwsi = &c->wsi;
	c->state = C_CONNECTING;
	c->connect_started_us = now_mono_us();
	g.initiated++;
	if (!lws_client_connect_via_info(&info) && c->state == C_CONNECTING) {
		c->state = C_FAILED;
		g.failed++;
		if (!g.first_error[0])
			snprintf(g.first_error, sizeof g.first_error, "lws_client_connect_via_info failed");
	}
}


/* ------------------------------------------------------------------------------------------------
 * The raw engine: nonblocking sockets on one epoll, the RFC 6455 client side written out here.
 * With libwebsockets 4.1's client, about 70 % of this process's CPU went to the library at 800 k
 * messages/s; this engine reads up to 64 KiB (more for a big frame) per system call and walks whole
 * frames.
 * It does not check Sec-WebSocket-Accept (a load tool talking to servers it started itself).
 * ---------------------------------------------------------------------------------------------- */

static void raw_watch(struct conn *c, uint32_t events, int op)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };
	epoll_ctl(g.epoll_fd, op, c->fd, &ev);
}

static void raw_close(struct conn *c, int failed_now)
{
	if (c->fd >= 0) {
		epoll_ctl(g.epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
		c->fd = -1;
	}
	if (c->state == C_OPEN) {
		if (g.phase < 3)
			g.dropped++;
		else
			g.closed_by_us++;
		c->state = C_CLOSED;
	} else if (c->state == C_CONNECTING) {
		g.failed++;
		c->state = C_FAILED;
		if (!g.first_error[0] && failed_now)
			snprintf(g.first_error, sizeof g.first_error, "connect or handshake failed: %s", strerror(failed_now));
	}
}

/* Sends what is queued; watches for writability while some is left. */
static void raw_flush(struct conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (errno == EINTR)
				continue;
			raw_close(c, errno);
			return;
		}
		c->out_off += (size_t)n;
	}
	if (c->out_off == c->out_len) {
		c->out_off = c->out_len = 0;
		raw_watch(c, EPOLLIN, EPOLL_CTL_MOD);
	} else
		raw_watch(c, EPOLLIN | EPOLLOUT, EPOLL_CTL_MOD);
}

static void raw_queue(struct conn *c, const void *bytes, size_t len)
{
	unsigned char *grown = realloc(c->out, c->out_len + len);
	if (!grown)
		return;
	c->out = grown;
	memcpy(c->out + c->out_len, bytes, len);
	c->out_len += len;
}

/* A client frame: FIN, the opcode, masked (RFC 6455 requires it from clients). */
static void raw_send_frame(struct conn *c, int opcode, const unsigned char *payload, size_t len)
{
	unsigned char header[14];
	size_t h = 0;
	static uint32_t seed = 0x9e3779b9u;
	header[h++] = (unsigned char)(0x80 | opcode);
	if (len < 126)
		header[h++] = (unsigned char)(0x80 | len);
	else if (len < 65536) {
		header[h++] = 0x80 | 126;
		header[h++] = (unsigned char)(len >> 8);
		header[h++] = (unsigned char)len;
	} else {
		header[h++] = 0x80 | 127;
		for (int i = 7; i >= 0; i--)
			header[h++] = (unsigned char)((uint64_t)len >> (8 * i));
	}
	seed ^= seed << 13;
	seed ^= seed >> 17;
	seed ^= seed << 5;
	unsigned char mask[4] = { (unsigned char)seed, (unsigned char)(seed >> 8), (unsigned char)(seed >> 16),
				  (unsigned char)(seed >> 24) };
	memcpy(header + h, mask, 4);
	h += 4;
	raw_queue(c, header, h);
	unsigned char *masked = malloc(len ? len : 1);
	if (!masked)
		return;
	for (size_t i = 0; i < len; i++)
		masked[i] = payload[i] ^ mask[i & 3];
	raw_queue(c, masked, len);
	free(masked);
	raw_flush(c);
}

static void raw_send_pending(struct conn *c)
{
	while (c->pending_sends > 0 && c->pending_text && c->fd >= 0) {
		raw_send_frame(c, 1, (const unsigned char *)c->pending_text, strlen(c->pending_text));
		c->pending_sends--;
	}
}

static void raw_start_connect(struct conn *c)
{
	c->state = C_CONNECTING;
	c->connect_started_us = now_mono_us();
	g.initiated++;
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		raw_close(c, errno);
		return;
	}
	int one = 1;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (connect(c->fd, (struct sockaddr *)&g.address, sizeof g.address) < 0 && errno != EINPROGRESS) {
		raw_close(c, errno);
		return;
	}
	char request[4096];
	int n = snprintf(request, sizeof request,
			 "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
			 "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
			 c->path, g.host, g.port);
	if (n < 0 || (size_t)n >= sizeof request) { /* read_url_file keeps paths well below this */
		raw_close(c, E2BIG);
		return;
	}
	raw_queue(c, request, (size_t)n);
	raw_watch(c, EPOLLIN | EPOLLOUT, EPOLL_CTL_ADD);
}

static void raw_opened(struct conn *c)
{
	c->state = C_OPEN;
	g.opened++;
	if (g.connect_times_n < g.n)
		g.connect_times[g.connect_times_n++] = now_mono_us() - c->connect_started_us;
	if (g.send_on_open) {
		c->pending_text = g.send_on_open;
		c->pending_sends = 1;
		raw_send_pending(c);
	}
}

/* Walks the whole frames in c->in; keeps a partial one for the next read. */
static void raw_parse(struct conn *c)
{
	size_t at = 0;
	while (c->fd >= 0 && c->in_len - at >= 2) {
		const unsigned char *p = c->in + at;
		size_t avail = c->in_len - at;
		int fin = p[0] & 0x80, opcode = p[0] & 0x0f, masked = p[1] & 0x80;
		uint64_t len = p[1] & 0x7f;
		size_t h = 2;
		if (len == 126) {
			if (avail < 4)
				break;
			len = ((uint64_t)p[2] << 8) | p[3];
			h = 4;
		} else if (len == 127) {
			if (avail < 10)
				break;
			len = 0;
			for (int i = 0; i < 8; i++)
				len = (len << 8) | p[2 + i];
			h = 10;
		}
		if (masked)
			h += 4;
		if (len > (64u << 20)) {
			raw_close(c, EMSGSIZE);
			return;
		}
		if (avail < h + len) {
			/* Make room for the whole frame. */
			if (h + len > c->in_cap - at) {
				size_t cap = c->in_cap;
				while (cap < h + len + 4096)
					cap *= 2;
				if (at) {
					memmove(c->in, c->in + at, c->in_len - at);
					c->in_len -= at;
					at = 0;
				}
				unsigned char *grown = realloc(c->in, cap);
				if (!grown) {
					raw_close(c, ENOMEM);
					return;
				}
				c->in = grown;
				c->in_cap = cap;
			}
			break;
		}
		unsigned char *payload = c->in + at + h;
		if (masked) {
			const unsigned char *key = payload - 4;
			for (uint64_t i = 0; i < len; i++)
				payload[i] ^= key[i & 3];
		}
		switch (opcode) {
		case 0x0: case 0x1: case 0x2:
			if (fin && !c->fragmented)
				on_message(c, payload, (size_t)len);
			else {
				unsigned char *grown = realloc(c->rx, c->rx_len + len + 1);
				if (!grown) {
					raw_close(c, ENOMEM);
					return;
				}
				c->rx = grown;
				memcpy(c->rx + c->rx_len, payload, (size_t)len);
				c->rx_len += (size_t)len;
				c->fragmented = !fin;
				if (fin) {
					on_message(c, c->rx, c->rx_len);
					c->rx_len = 0;
				}
			}
			break;
		case 0x8: /* close: answer it and end */
			raw_send_frame(c, 0x8, payload, len >= 2 ? 2 : 0);
			raw_close(c, 0);
			return;
		case 0x9: /* ping */
			raw_send_frame(c, 0xA, payload, (size_t)len);
			break;
		default:
			break;
		}
		at += h + (size_t)len;
	}
	if (c->fd >= 0 && at) {
		memmove(c->in, c->in + at, c->in_len - at);
		c->in_len -= at;
	}
}

static void raw_readable(struct conn *c)
{
	if (!c->in) {
		c->in_cap = 64 * 1024;
		c->in = malloc(c->in_cap);
		if (!c->in) {
			raw_close(c, ENOMEM);
			return;
		}
	}
	if (c->in_len == c->in_cap) {
		unsigned char *grown = realloc(c->in, c->in_cap * 2);
		if (!grown) {
			raw_close(c, ENOMEM);
			return;
		}
		c->in = grown;
		c->in_cap *= 2;
	}
	ssize_t n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
	if (n == 0) {
		raw_close(c, ECONNRESET);
		return;
	}
	if (n < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			raw_close(c, errno);
		return;
	}
	c->in_len += (size_t)n;
	if (c->state == C_CONNECTING) {
		unsigned char *end = memmem(c->in, c->in_len, "\r\n\r\n", 4);
		if (!end) {
			if (c->in_len > 16384)
				raw_close(c, EPROTO);
			return;
		}
		if (c->in_len < 12 || memcmp(c->in + 9, "101", 3)) {
			if (!g.first_error[0])
				snprintf(g.first_error, sizeof g.first_error, "handshake answered %.12s", c->in);
			raw_close(c, 0);
			return;
		}
		size_t header = (size_t)(end + 4 - c->in);
		memmove(c->in, c->in + header, c->in_len - header);
		c->in_len -= header;
		raw_opened(c);
	}
	raw_parse(c);
}

static void raw_writable(struct conn *c)
{
	if (c->state == C_CONNECTING && c->out_off == 0) {
		int error = 0;
		socklen_t len = sizeof error;
		getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &error, &len);
		if (error) {
			raw_close(c, error);
			return;
		}
	}
	raw_flush(c);
}

static void start_connect(struct conn *c)
{
	if (g.raw)
		raw_start_connect(c);
	else
		lws_start_connect(c);
}

/* Asks connection c to send its pending messages. */
static void request_send(struct conn *c)
{
	if (g.raw)
		raw_send_pending(c);
	else
		lws_callback_on_writable(c->wsi);
}

static int stdin_closed(void)
{
	struct pollfd p = { .fd = 0, .events = POLLIN };
	if (poll(&p, 1, 0) <= 0)
		return 0;
	char buf[256];
	ssize_t got = read(0, buf, sizeof buf);
	return got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR);
}

static void begin_measuring(void)
{
	g.phase = 2;
	g.measure_started_us = now_mono_us();
	g.deadline_us = g.measure_started_us + (int64_t)(g.duration * 1e6);
	if (g.server_pid)
		g.server_ticks_start = proc_cpu_ticks(g.server_pid);
	getrusage(RUSAGE_SELF, &g.usage_start);
	if (g.start_text && g.starts > 0) {
		for (int i = 0; i < g.n; i++)
			if (g.conns[i].state == C_OPEN) {
				g.conns[i].pending_text = g.start_text;
				g.conns[i].pending_sends = g.starts;
				request_send(&g.conns[i]);
				break;
			}
	}
}

static void finish(void)
{
	g.phase = 3;
	g.finished_us = now_mono_us();
	getrusage(RUSAGE_SELF, &g.usage_end);
	if (g.server_pid) {
		g.server_ticks_end = proc_cpu_ticks(g.server_pid);
		g.rss_end_kb = proc_status_kb(g.server_pid, "VmRSS");
		g.hwm_kb = proc_status_kb(g.server_pid, "VmHWM");
	}
	/* lws_service may poll again before it returns: wake it so the main loop sees the phase. */
	if (!g.raw)
		lws_cancel_service(g.context);
}

/* The phase machine, every 5 ms on the service thread. */
static void on_tick(lws_sorted_usec_list_t *sul)
{
	int64_t now = now_mono_us();
	(void)sul;
	if (g.interrupted && g.phase < 3) {
		if (g.phase < 2)
			begin_measuring();
		finish();
	}
	switch (g.phase) {
	case 0: {
		int pending = g.initiated - g.opened - g.failed - g.dropped;
		int budget = g.inflight - pending;
		while (budget-- > 0 && g.initiated < g.n)
			start_connect(&g.conns[g.initiated]);
		int settled = g.initiated == g.n && g.opened + g.failed + g.dropped >= g.n;
		if (settled || now - g.phase_started_us > (int64_t)(g.connect_timeout * 1e6)) {
			g.connect_phase_us = now - g.phase_started_us;
			g.phase = 1;
			g.phase_started_us = now;
			printf("connected %d failed %d\n", g.opened, g.failed);
			fflush(stdout);
		}
		break;
	}
	case 1:
		/* Let the connect snapshots arrive and the server settle (the RSS reading for idle
		 * connections is taken at the end of it). */
		if (now - g.phase_started_us > (int64_t)((g.hold > 0 ? g.hold : 0.5) * 1e6)) {
			if (g.server_pid)
				g.rss_connected_kb = proc_status_kb(g.server_pid, "VmRSS");
			begin_measuring();
		}
		break;
	case 2: {
		int over = now >= g.deadline_us;
		if (g.stop_on_stdin_eof && stdin_closed())
			over = 1;
		if (over) {
			/* After the duration, wait for the stream to go quiet (events still in flight). */
			int64_t quiet_since = g.last_msg_us ? g.last_msg_us : g.measure_started_us;
			if (g.stop_on_stdin_eof || now - quiet_since > (int64_t)(g.quiet_after * 1e6) ||
			    now >= g.deadline_us + (int64_t)(g.tail * 1e6) ||
			    g.opened - g.dropped <= 0)
				finish();
		}
		break;
	}
	default:
		break;
	}
	if (g.phase < 3 && !g.raw)
		lws_sul_schedule(g.context, 0, &g.tick, on_tick, 5000);
}

static void on_signal(int sig)
{
	(void)sig;
	g.interrupted = 1;
}

static int64_t percentile_connect(double q)
{
	if (!g.connect_times_n)
		return -1;
	/* insertion into a sorted copy would be slow at 20k: use qsort */
	return g.connect_times[(size_t)(q * (g.connect_times_n - 1))];
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int64_t lat_percentile(double q)
{
	uint64_t total = g.events_with_ts, want, seen = 0;
	if (!total)
		return -1;
	want = (uint64_t)(q * (double)total);
	if (want >= total)
		want = total - 1;
	for (int64_t i = 0; i < LAT_BUCKETS; i++) {
		seen += g.lat[i];
		if (seen > want)
			return lat_value(i);
	}
	return g.lat_max;
}

static double tv_seconds(struct timeval tv) { return tv.tv_sec + tv.tv_usec / 1e6; }

#define URL_LINE_MAX 3072

/* Splits ws://HOST:PORT/PATH; 0 when it is not one. */
static int parse_url(const char *url, char *host, int *port, char *path)
{
	path[0] = 0;
	if (sscanf(url, "ws://%255[^:/]:%d%3071s", host, port, path) < 2)
		return 0;
	if (!path[0])
		strcpy(path, "/");
	return 1;
}

/* --url-file: one URL a line (blank lines skipped), all on g.host:g.port, the first of them setting
 * it when --url did not. Exits with a message on a bad line: a load run must not half-start. */
static void read_url_file(const char *file, int have_url)
{
	FILE *f = fopen(file, "r");
	if (!f) {
		fprintf(stderr, "bench-client: cannot read --url-file %s: %s\n", file, strerror(errno));
		exit(2);
	}
	char line[URL_LINE_MAX + 2], host[256], path[URL_LINE_MAX];
	int port, cap = 0, number = 0;
	while (fgets(line, sizeof line, f)) {
		number++;
		size_t len = strlen(line);
		if (len && line[len - 1] != '\n' && !feof(f)) {
			fprintf(stderr, "bench-client: %s line %d is longer than %d bytes\n", file, number, URL_LINE_MAX);
			exit(2);
		}
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' '))
			line[--len] = 0;
		if (!len)
			continue;
		if (!parse_url(line, host, &port, path)) {
			fprintf(stderr, "bench-client: %s line %d is not ws://HOST:PORT/PATH\n", file, number);
			exit(2);
		}
		if (!have_url && !g.paths_n) {
			strcpy(g.host, host);
			g.port = port;
		} else if (strcmp(host, g.host) || port != g.port) {
			fprintf(stderr, "bench-client: %s line %d is not on %s:%d (every connection goes to one address)\n",
				file, number, g.host, g.port);
			exit(2);
		}
		if (g.paths_n == cap) {
			cap = cap ? cap * 2 : 1024;
			g.paths = realloc(g.paths, (size_t)cap * sizeof *g.paths);
			if (!g.paths)
				exit(1);
		}
		g.paths[g.paths_n++] = strdup(path);
	}
	fclose(f);
	if (!g.paths_n) {
		fprintf(stderr, "bench-client: --url-file %s holds no URL\n", file);
		exit(2);
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: bench-client --url ws://127.0.0.1:PORT/PATH -n N [--duration S] [--tail S] [--quiet-after S]\n"
		"         [--url-file FILE]    (a URL per line, same host and port; connection i takes line i mod lines)\n"
		"         [--scoped [--ignore-job ID]]  (seq holes expected: gaps counted per job from progress\n"
		"                              `completed`; the progress of job ID is not counted)\n"
		"         [--send-on-open TEXT] [--start TEXT [--starts K]] [--hold S]\n"
		"         [--server-pid PID] [--inflight N] [--connect-timeout S] [--quiet] [--stop-on-stdin-eof]\n"
		"         [--per-event FILE]   (one line per event measured: count, min/mean/max latency, spread)\n"
		"         [--engine raw|lws]   (raw, the default: our own epoll client; lws: libwebsockets 4.1's)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *url = NULL;
	g.n = 1;
	g.duration = 5;
	g.tail = 5;
	g.quiet_after = 1;
	g.connect_timeout = 60;
	g.inflight = 256;
	g.starts = 1;
	g.lat_min = -1;
	g.raw = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define TAKE() (v ? (i++, v) : (usage(), ""))
		if (!strcmp(a, "--url")) url = TAKE();
		else if (!strcmp(a, "-n")) g.n = atoi(TAKE());
		else if (!strcmp(a, "--duration")) g.duration = atof(TAKE());
		else if (!strcmp(a, "--tail")) g.tail = atof(TAKE());
		else if (!strcmp(a, "--quiet-after")) g.quiet_after = atof(TAKE());
		else if (!strcmp(a, "--hold")) g.hold = atof(TAKE());
		else if (!strcmp(a, "--send-on-open")) g.send_on_open = TAKE();
		else if (!strcmp(a, "--start")) g.start_text = TAKE();
		else if (!strcmp(a, "--starts")) g.starts = atoi(TAKE());
		else if (!strcmp(a, "--server-pid")) g.server_pid = atoi(TAKE());
		else if (!strcmp(a, "--inflight")) g.inflight = atoi(TAKE());
		else if (!strcmp(a, "--connect-timeout")) g.connect_timeout = atof(TAKE());
		else if (!strcmp(a, "--quiet")) g.quiet = 1;
		else if (!strcmp(a, "--per-event")) g.per_event_path = TAKE();
		else if (!strcmp(a, "--url-file")) g.url_file = TAKE();
		else if (!strcmp(a, "--scoped")) g.scoped = 1;
		else if (!strcmp(a, "--ignore-job")) g.ignore_job = TAKE();
		else if (!strcmp(a, "--engine")) {
			const char *e = TAKE();
			if (!strcmp(e, "raw")) g.raw = 1;
			else if (!strcmp(e, "lws")) g.raw = 0;
			else usage();
		}
		else if (!strcmp(a, "--stop-on-stdin-eof")) g.stop_on_stdin_eof = 1;
		else usage();
#undef TAKE
	}
	if ((!url && !g.url_file) || g.n < 1 || g.n > 20000 || g.duration < 0 || g.duration > 3600)
		usage();
	if (url && (strlen(url) >= URL_LINE_MAX || !parse_url(url, g.host, &g.port, g.path)))
		usage();
	if (g.url_file)
		read_url_file(g.url_file, url != NULL);

	/* One descriptor per connection, plus lws's own. */
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if ((rlim_t)g.n + 64 > rl.rlim_cur) {
		fprintf(stderr, "bench-client: -n %d needs more open files than the limit %llu\n", g.n,
			(unsigned long long)rl.rlim_cur);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	g.conns = calloc((size_t)g.n, sizeof *g.conns);
	g.connect_times = calloc((size_t)g.n, sizeof *g.connect_times);
	g.lat = calloc(LAT_BUCKETS, sizeof *g.lat);
	if (!g.conns || !g.connect_times || !g.lat)
		return 1;
	for (int i = 0; i < g.n; i++) {
		g.conns[i].index = i;
		g.conns[i].last_seq = -1;
		g.conns[i].path = g.paths_n ? g.paths[i % g.paths_n] : g.path;
	}

	if (g.server_pid)
		g.rss_before_kb = proc_status_kb(g.server_pid, "VmRSS");
	if (g.raw) {
		g.address.sin_family = AF_INET;
		g.address.sin_port = htons((uint16_t)g.port);
		if (inet_pton(AF_INET, strcmp(g.host, "localhost") ? g.host : "127.0.0.1", &g.address.sin_addr) != 1) {
			fprintf(stderr, "bench-client: --engine raw takes an IPv4 address, not %s\n", g.host);
			return 2;
		}
		g.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
		for (int i = 0; i < g.n; i++)
			g.conns[i].fd = -1;
		struct epoll_event events[512];
		int64_t next_tick = 0;
		g.phase_started_us = now_mono_us();
		while (g.phase < 3) {
			int64_t now = now_mono_us();
			if (now >= next_tick) {
				on_tick(NULL);
				next_tick = now + 5000;
			}
			int wait_ms = (int)((next_tick - now) / 1000) + 1;
			int ready = epoll_wait(g.epoll_fd, events, 512, wait_ms);
			for (int i = 0; i < ready; i++) {
				struct conn *c = events[i].data.ptr;
				if (c->fd < 0)
					continue;
				if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
					raw_readable(c);
				if (c->fd >= 0 && (events[i].events & EPOLLOUT))
					raw_writable(c);
			}
		}
	} else {
		lws_set_log_level(LLL_ERR, NULL);
		struct lws_context_creation_info info;
		memset(&info, 0, sizeof info);
		info.port = CONTEXT_PORT_NO_LISTEN;
		info.protocols = protocols;
		info.gid = -1;
		info.uid = -1;
		info.fd_limit_per_thread = (unsigned int)g.n + 64;
		info.pt_serv_buf_size = 64 * 1024;
		info.timeout_secs = 30;
		g.context = lws_create_context(&info);
		if (!g.context) {
			fprintf(stderr, "bench-client: cannot create a libwebsockets context\n");
			return 1;
		}
		g.phase_started_us = now_mono_us();
		lws_sul_schedule(g.context, 0, &g.tick, on_tick, 1);
		while (g.phase < 3)
			if (lws_service(g.context, 0) < 0)
				break;
	}
	if (g.phase < 3)
		finish();
	/* No lws_context_destroy: it waits for every close handshake (up to timeout_secs). The results
	 * are printed and the process ends; the kernel closes the sockets. */

	/* Results */
	qsort(g.connect_times, (size_t)g.connect_times_n, sizeof *g.connect_times, cmp64);
	/* The rate is over the time from the start command to the last message: a server that takes a
	 * while to deliver its first event, or stalls on the way, is not flattered by it. */
	double window = g.last_msg_us > g.measure_started_us ? (g.last_msg_us - g.measure_started_us) / 1e6 : 0;
	double first_msg_s = g.first_msg_us ? (g.first_msg_us - g.measure_started_us) / 1e6 : -1;
	uint64_t measured = g.messages - g.messages_before;
	double rate = window > 0 ? measured / window : 0;
	double byte_rate = window > 0 ? (double)(g.bytes - g.bytes_before) / window : 0;
	double measure_s = (g.finished_us - g.measure_started_us) / 1e6;
	long hz = sysconf(_SC_CLK_TCK);
	double client_cpu = tv_seconds(g.usage_end.ru_utime) + tv_seconds(g.usage_end.ru_stime) -
			    tv_seconds(g.usage_start.ru_utime) - tv_seconds(g.usage_start.ru_stime);
	double server_cpu = g.server_pid && measure_s > 0
				    ? (double)(g.server_ticks_end - g.server_ticks_start) / hz / measure_s * 100
				    : -1;
	double client_cpu_pct = measure_s > 0 ? client_cpu / measure_s * 100 : -1;
	long per_conn_b = g.opened > 0 && g.rss_before_kb > 0 && g.rss_connected_kb > 0
				  ? (g.rss_connected_kb - g.rss_before_kb) * 1024 / g.opened
				  : -1;

	/* --scoped: the progress deliveries, from the first to the last of them anywhere (the job gate
	 * of bench/scoped leaves the start of the window idle), and the seq holes, which are expected. */
	char scoped[640] = "";
	if (g.scoped) {
		/* The fewest and most progress events one connection received: a connection that missed
		 * the end of its stream shows here when the gaps (counted between events) cannot. */
		uint64_t fewest = UINT64_MAX, most = 0;
		for (int i = 0; i < g.n; i++) {
			if (g.conns[i].progress_events < fewest)
				fewest = g.conns[i].progress_events;
			if (g.conns[i].progress_events > most)
				most = g.conns[i].progress_events;
		}
		double progress_window =
			g.last_progress_us > g.first_progress_us ? (g.last_progress_us - g.first_progress_us) / 1e6 : 0;
		snprintf(scoped, sizeof scoped,
			 ",\"scoped\":true,\"url_lines\":%d,\"progress_events\":%" PRIu64 ",\"progress_window_s\":%.3f,"
			 "\"progress_per_s\":%.0f,\"first_progress_s\":%.3f,\"progress_before_start\":%" PRIu64
			 ",\"progress_per_conn_min\":%" PRIu64 ",\"progress_per_conn_max\":%" PRIu64
			 ",\"seq_holes\":%" PRIu64 ",\"jobs_untracked\":%" PRIu64,
			 g.paths_n ? g.paths_n : 1, g.progress_events, progress_window,
			 progress_window > 0 ? g.progress_events / progress_window : 0,
			 g.first_progress_us ? (g.first_progress_us - g.measure_started_us) / 1e6 : -1.0, g.progress_before,
			 fewest, most,
			 g.seq_holes, g.jobs_untracked);
	}
	printf("{\"n\":%d,\"opened\":%d,\"failed\":%d,\"dropped\":%d,"
	       "\"connect_phase_s\":%.3f,\"connect_ms_p50\":%.3f,\"connect_ms_p99\":%.3f,\"connect_ms_max\":%.3f,"
	       "\"messages\":%" PRIu64 ",\"messages_before_start\":%" PRIu64 ",\"bytes\":%" PRIu64 ","
	       "\"window_s\":%.3f,\"first_msg_s\":%.3f,\"msgs_per_s\":%.0f,\"bytes_per_s\":%.0f,"
	       "\"events_with_ts\":%" PRIu64 ",\"lat_ms_p50\":%.3f,\"lat_ms_p99\":%.3f,\"lat_ms_max\":%.3f,"
	       "\"gaps\":%" PRIu64 ",\"gap_events\":%" PRIu64 ",\"out_of_order\":%" PRIu64 ",\"snapshots\":%" PRIu64
	       ",\"resyncs\":%" PRIu64 ","
	       "\"server_cpu_pct\":%.1f,\"client_cpu_pct\":%.1f,"
	       "\"server_rss_kb_before\":%ld,\"server_rss_kb_connected\":%ld,\"server_rss_kb_end\":%ld,"
	       "\"server_hwm_kb\":%ld,\"server_rss_bytes_per_conn\":%ld,\"first_error\":\"%s\"%s}\n",
	       g.n, g.opened, g.failed, g.dropped, g.connect_phase_us / 1e6,
	       percentile_connect(0.5) / 1e3, percentile_connect(0.99) / 1e3,
	       g.connect_times_n ? g.connect_times[g.connect_times_n - 1] / 1e3 : -1.0,
	       measured, g.messages_before, g.bytes, window, first_msg_s, rate, byte_rate, g.events_with_ts,
	       lat_percentile(0.5) / 1e3, lat_percentile(0.99) / 1e3, g.events_with_ts ? g.lat_max / 1e3 : -1.0,
	       g.gaps, g.gap_events, g.out_of_order, g.snapshots, g.resyncs, server_cpu, client_cpu_pct,
	       g.rss_before_kb, g.rss_connected_kb, g.rss_end_kb, g.hwm_kb, per_conn_b, g.first_error, scoped);
	fflush(stdout);
	if (!g.quiet)
		fprintf(stderr,
			"%d/%d open (%d failed, %d dropped), connect p50 %.1f ms p99 %.1f ms; %" PRIu64
			" msgs in %.2f s = %.0f msg/s, %.1f MB/s; latency p50 %.2f ms p99 %.2f ms max %.2f ms; "
			"gaps %" PRIu64 "; server CPU %.0f%%, client CPU %.0f%%\n",
			g.opened, g.n, g.failed, g.dropped, percentile_connect(0.5) / 1e3, percentile_connect(0.99) / 1e3,
			measured, window, rate, byte_rate / 1e6, lat_percentile(0.5) / 1e3, lat_percentile(0.99) / 1e3,
			g.lat_max / 1e3, g.gaps, server_cpu, client_cpu_pct);
	fflush(stderr);
	if (g.per_event_path && g.per_event)
		write_per_event();
	_exit(0);
}
