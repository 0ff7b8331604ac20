// goclient: the second load client for bench/run, of another design than bench-client's.
//
// bench-client (bench/Sources/bench-client/main.c) serves every connection from one thread on one
// epoll with its own RFC 6455 parser: the fastest reader we could write. This one is what an
// ordinary Go user writes: one goroutine per connection, each in a loop on gorilla/websocket's
// Conn.ReadMessage (a fresh []byte per message, the Go runtime's scheduler and garbage collector
// in the path). A result about a server that holds with both clients is about the server; one that
// holds with only one of them is about that client.
//
// Same flags and the same JSON result line as bench-client (bench/summarize.py reads either): N
// connections (1..20,000), at most --inflight handshakes at a time; after the connect phase it
// prints "connected N failed M" on stdout, waits --hold seconds (0.5 by default), sends --start
// (--starts times) on the first open connection, then for --duration seconds counts every message,
// its bytes, the latency from the event's `ts` (the server's wall clock in microseconds; same
// machine) to its receipt, and gaps in `seq` per connection (a `snapshot` resets a connection's
// place to its `seq` and, with reason "resync", counts as a resync). After the duration it waits
// until the stream has been quiet for --quiet-after seconds, at most --tail more. With --server-pid
// it reads the server's CPU time, RSS and peak RSS (VmHWM) from /proc. One JSON object on stdout at
// the end; a human summary on stderr unless --quiet.
//
// Each message is scanned for the top-level keys it needs (type, reason, seq, ts) without decoding
// the rest: a cheap walk over the object that skips nested values, so a "seq" inside a nested
// object is never taken for the event's.
//
// Every loop is bounded: the connect phase by --connect-timeout, the measurement by --duration plus
// --tail. It only connects where --url says; bench/run only ever gives it 127.0.0.1.
//
// Built offline from Debian's packages (golang-go, golang-github-gorilla-websocket-dev):
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o goclient .
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
)

// Latency histogram, as bench-client's: 1 µs buckets below 1 s, then 1 ms buckets up to 120 s.
const (
	latFine    = 1000000
	latBuckets = latFine + 120000
)

func latBucket(us int64) int64 {
	if us < latFine {
		return us
	}
	return latFine + (us-latFine)/1000
}

func latValue(bucket int64) int64 {
	if bucket < latFine {
		return bucket
	}
	return latFine + (bucket-latFine)*1000
}

const (
	phaseConnecting = iota
	phaseSettling
	phaseMeasuring
	phaseDone
)

const (
	stateIdle = iota
	stateConnecting
	stateOpen
	stateClosed
	stateFailed
)

// conn is one connection. Its counters are written only by its own goroutine and read by the
// main goroutine (live for the phase machine, and at the end), so every field is atomic; each
// conn is its own allocation, padded, so two goroutines' counters do not share a cache line.
type conn struct {
	ws             *websocket.Conn // set before state becomes stateOpen; written to by main only after
	state          int32
	lastSeq        int64 // -1: none seen yet (own goroutine only)
	messages       uint64
	bytes          uint64
	messagesBefore uint64 // during the connect and settle phases
	bytesBefore    uint64
	eventsWithTs   uint64
	gaps           uint64
	gapEvents      uint64
	outOfOrder     uint64
	resyncs        uint64
	snapshots      uint64
	lastMsgNs      int64 // monotonic, since base; 0: none while measuring
	connectNs      int64 // handshake time; 0: not opened
	_              [64]byte
}

// Options and the state the goroutines share. Options are set before any goroutine starts.
var (
	optURL            string
	optN              int
	optSendOnOpen     string
	optStart          string
	optStarts         int
	optDuration       float64
	optTail           float64
	optQuietAfter     float64
	optHold           float64
	optConnectTimeout float64
	optInflight       int
	optServerPID      int
	optQuiet          bool
	optStopOnStdinEOF bool

	base    = time.Now() // monotonic origin
	conns   []*conn
	phase   int32 // atomic
	opened  int32 // atomic
	failed  int32 // atomic
	dropped int32 // atomic
	// Latency: histogram buckets and the maximum, shared by all goroutines (atomic adds).
	lat         []uint32
	latOverflow uint64
	latMax      int64 = -1
	// Monotonic ns since base of the first message while measuring (0: none yet), and a coarse
	// "some message arrived about then" (updated at most once a millisecond by anyone) that the
	// phase machine reads to see the stream go quiet; the exact last one is per connection.
	firstMsgNs  int64
	recentMsgNs int64

	errorOnce  sync.Once
	firstError atomic.Value // string
)

func monoNs() int64 { return int64(time.Since(base)) }

func setFirstError(format string, args ...interface{}) {
	errorOnce.Do(func() {
		text := fmt.Sprintf(format, args...)
		if len(text) > 255 {
			text = text[:255]
		}
		firstError.Store(text)
	})
}

// fields is what one message says about the stream.
type fields struct {
	typeSeen, snapshot, reasonSeen, resync, hasSeq, hasTs bool
	seq, ts                                               int64
}

// scanMessage walks the message's top-level object and picks out type, reason, seq and ts; it
// stops as soon as it has what that kind of message needs. Anything malformed ends the walk with
// what was found so far.
func scanMessage(msg []byte) (f fields) {
	i := skipSpace(msg, 0)
	if i >= len(msg) || msg[i] != '{' {
		return
	}
	i++
	for {
		i = skipSpace(msg, i)
		if i >= len(msg) || msg[i] == '}' {
			return
		}
		if msg[i] == ',' {
			i++
			continue
		}
		if msg[i] != '"' {
			return
		}
		keyEnd := stringEnd(msg, i)
		if keyEnd < 0 {
			return
		}
		key := msg[i+1 : keyEnd]
		i = skipSpace(msg, keyEnd+1)
		if i >= len(msg) || msg[i] != ':' {
			return
		}
		i = skipSpace(msg, i+1)
		switch {
		case string(key) == "type":
			f.typeSeen = true
			f.snapshot = hasStringValue(msg, i, "snapshot")
		case string(key) == "reason":
			f.reasonSeen = true
			f.resync = hasStringValue(msg, i, "resync")
		case string(key) == "seq":
			f.seq, f.hasSeq = parseInt(msg, i)
		case string(key) == "ts":
			f.ts, f.hasTs = parseInt(msg, i)
		}
		if f.typeSeen && f.hasSeq && (f.snapshot && f.reasonSeen || !f.snapshot && f.hasTs) {
			return
		}
		i = skipValue(msg, i)
		if i < 0 {
			return
		}
	}
}

func skipSpace(msg []byte, i int) int {
	for i < len(msg) && (msg[i] == ' ' || msg[i] == '\t' || msg[i] == '\n' || msg[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index of the quote closing the string that opens at i, or -1.
func stringEnd(msg []byte, i int) int {
	for i++; i < len(msg); i++ {
		switch msg[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// hasStringValue: the value at i is exactly the JSON string want (no escapes in want).
func hasStringValue(msg []byte, i int, want string) bool {
	end := i + 1 + len(want)
	return end < len(msg) && msg[i] == '"' && string(msg[i+1:end]) == want && msg[end] == '"'
}

func parseInt(msg []byte, i int) (int64, bool) {
	negative := false
	if i < len(msg) && msg[i] == '-' {
		negative = true
		i++
	}
	if i >= len(msg) || msg[i] < '0' || msg[i] > '9' {
		return 0, false
	}
	var v int64
	for ; i < len(msg) && msg[i] >= '0' && msg[i] <= '9'; i++ {
		v = v*10 + int64(msg[i]-'0')
	}
	if i < len(msg) && (msg[i] == '.' || msg[i] == 'e' || msg[i] == 'E') {
		return 0, false // not an integer
	}
	if negative {
		v = -v
	}
	return v, true
}

// skipValue returns the index just past the value that starts at i, or -1 if it does not end.
func skipValue(msg []byte, i int) int {
	if i >= len(msg) {
		return -1
	}
	switch msg[i] {
	case '"':
		end := stringEnd(msg, i)
		if end < 0 {
			return -1
		}
		return end + 1
	case '{', '[':
		depth := 0
		for ; i < len(msg); i++ {
			switch msg[i] {
			case '"':
				i = stringEnd(msg, i)
				if i < 0 {
					return -1
				}
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	default: // number, true, false, null
		for ; i < len(msg); i++ {
			switch msg[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
		}
		return i
	}
}

// onMessage counts one message of connection c, received at wall-clock µs nowUs and monotonic
// ns nowNs. Runs on c's goroutine.
func onMessage(c *conn, msg []byte, nowUs, nowNs int64) {
	p := atomic.LoadInt32(&phase)
	atomic.AddUint64(&c.messages, 1)
	atomic.AddUint64(&c.bytes, uint64(len(msg)))
	if p < phaseMeasuring {
		atomic.AddUint64(&c.messagesBefore, 1)
		atomic.AddUint64(&c.bytesBefore, uint64(len(msg)))
	} else {
		if atomic.LoadInt64(&firstMsgNs) == 0 {
			atomic.CompareAndSwapInt64(&firstMsgNs, 0, nowNs)
		}
		atomic.StoreInt64(&c.lastMsgNs, nowNs)
		if nowNs-atomic.LoadInt64(&recentMsgNs) > int64(time.Millisecond) {
			atomic.StoreInt64(&recentMsgNs, nowNs)
		}
	}
	f := scanMessage(msg)
	if f.snapshot {
		// A snapshot (re)sets the connection's place in the stream.
		atomic.AddUint64(&c.snapshots, 1)
		if f.resync {
			atomic.AddUint64(&c.resyncs, 1)
		}
		if f.hasSeq {
			c.lastSeq = f.seq
		}
		return
	}
	if !f.hasSeq {
		return // a reply (accepted, pong): not numbered
	}
	if c.lastSeq >= 0 {
		if f.seq > c.lastSeq+1 {
			atomic.AddUint64(&c.gaps, 1)
			atomic.AddUint64(&c.gapEvents, uint64(f.seq-c.lastSeq-1))
		} else if f.seq <= c.lastSeq {
			atomic.AddUint64(&c.outOfOrder, 1)
		}
	}
	c.lastSeq = f.seq
	if p == phaseMeasuring && f.hasTs {
		l := nowUs - f.ts
		if l < 0 {
			l = 0
		}
		atomic.AddUint64(&c.eventsWithTs, 1)
		if b := latBucket(l); b < latBuckets {
			atomic.AddUint32(&lat[b], 1)
		} else {
			atomic.AddUint64(&latOverflow, 1)
		}
		for {
			current := atomic.LoadInt64(&latMax)
			if l <= current || atomic.CompareAndSwapInt64(&latMax, current, l) {
				break
			}
		}
	}
}

// writeBuffers lends a write buffer to a connection only while it writes (gorilla/websocket's
// documented way to keep idle connections small): this client writes a handful of messages.
var writeBuffers = &sync.Pool{}

// run opens connection c, then reads it until it closes. sem holds its handshake slot.
func run(c *conn, ctx context.Context, sem chan struct{}) {
	dialer := websocket.Dialer{
		HandshakeTimeout: time.Duration(optConnectTimeout * float64(time.Second)),
		WriteBufferPool:  writeBuffers,
	}
	started := monoNs()
	ws, _, err := dialer.DialContext(ctx, optURL, nil)
	if err != nil {
		<-sem
		atomic.StoreInt32(&c.state, stateFailed)
		atomic.AddInt32(&failed, 1)
		setFirstError("connect or handshake failed: %v", err)
		return
	}
	c.ws = ws
	atomic.StoreInt64(&c.connectNs, monoNs()-started)
	if optSendOnOpen != "" {
		if err := ws.WriteMessage(websocket.TextMessage, []byte(optSendOnOpen)); err != nil {
			setFirstError("send on open: %v", err)
		}
	}
	atomic.StoreInt32(&c.state, stateOpen)
	atomic.AddInt32(&opened, 1)
	<-sem
	for {
		_, msg, err := ws.ReadMessage()
		if err != nil {
			if atomic.LoadInt32(&phase) < phaseDone {
				atomic.AddInt32(&dropped, 1)
				var closeErr *websocket.CloseError
				if !errors.As(err, &closeErr) || closeErr.Code != websocket.CloseNormalClosure {
					setFirstError("read: %v", err)
				}
			}
			atomic.StoreInt32(&c.state, stateClosed)
			ws.Close()
			return
		}
		now := time.Now()
		onMessage(c, msg, now.UnixMicro(), int64(now.Sub(base)))
	}
}

// /proc readers, as bench-client's.
func procStatusKB(pid int, field string) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, field+":") {
			v, err := strconv.ParseInt(strings.Fields(line[len(field)+1:])[0], 10, 64)
			if err != nil {
				return -1
			}
			return v
		}
	}
	return -1
}

// procCPUTicks: utime + stime in clock ticks (USER_HZ, 100 on Linux).
func procCPUTicks(pid int) uint64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name may hold spaces: fields restart after the last ')'.
	at := strings.LastIndexByte(string(data), ')')
	if at < 0 {
		return 0
	}
	rest := strings.Fields(string(data[at+1:])) // rest[0] is field 3, state
	if len(rest) < 13 {
		return 0
	}
	utime, _ := strconv.ParseUint(rest[11], 10, 64)
	stime, _ := strconv.ParseUint(rest[12], 10, 64)
	return utime + stime
}

const userHZ = 100

func cpuSeconds() float64 {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return float64(u.Utime.Sec+u.Stime.Sec) + float64(u.Utime.Usec+u.Stime.Usec)/1e6
}

func usage() {
	fmt.Fprint(os.Stderr,
		"usage: goclient --url ws://HOST:PORT/PATH -n N [--duration S] [--tail S] [--quiet-after S]\n"+
			"         [--send-on-open TEXT] [--start TEXT [--starts K]] [--hold S]\n"+
			"         [--server-pid PID] [--inflight N] [--connect-timeout S] [--quiet] [--stop-on-stdin-eof]\n"+
			"         [--cpu-profile FILE]   (this client's own CPU profile, for go tool pprof)\n")
	os.Exit(2)
}

func main() {
	flags := flag.NewFlagSet("goclient", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	flags.StringVar(&optURL, "url", "", "")
	flags.IntVar(&optN, "n", 1, "")
	flags.Float64Var(&optDuration, "duration", 5, "")
	flags.Float64Var(&optTail, "tail", 5, "")
	flags.Float64Var(&optQuietAfter, "quiet-after", 1, "")
	flags.Float64Var(&optHold, "hold", 0, "")
	flags.StringVar(&optSendOnOpen, "send-on-open", "", "")
	flags.StringVar(&optStart, "start", "", "")
	flags.IntVar(&optStarts, "starts", 1, "")
	flags.IntVar(&optServerPID, "server-pid", 0, "")
	flags.IntVar(&optInflight, "inflight", 256, "")
	flags.Float64Var(&optConnectTimeout, "connect-timeout", 60, "")
	flags.BoolVar(&optQuiet, "quiet", false, "")
	flags.BoolVar(&optStopOnStdinEOF, "stop-on-stdin-eof", false, "")
	cpuProfile := flags.String("cpu-profile", "", "") // where this client's own time goes (go tool pprof)
	if err := flags.Parse(os.Args[1:]); err != nil || flags.NArg() > 0 {
		if err != nil && err != flag.ErrHelp {
			fmt.Fprintln(os.Stderr, "goclient:", err)
		}
		usage()
	}
	if optURL == "" || optN < 1 || optN > 20000 || optDuration < 0 || optDuration > 3600 || optInflight < 1 ||
		optConnectTimeout <= 0 {
		usage()
	}
	if u, err := url.Parse(optURL); err != nil || u.Scheme != "ws" || u.Host == "" {
		fmt.Fprintf(os.Stderr, "goclient: --url must be ws://HOST:PORT/PATH, not %q\n", optURL)
		os.Exit(2)
	}

	// One descriptor per connection (Go raises the soft limit to the hard one at start).
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) == nil && uint64(optN)+64 > rl.Cur {
		rl.Cur = rl.Max
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl)
		syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl)
		if uint64(optN)+64 > rl.Cur {
			fmt.Fprintf(os.Stderr, "goclient: -n %d needs more open files than the limit %d\n", optN, rl.Cur)
			os.Exit(2)
		}
	}

	interrupted := make(chan os.Signal, 1)
	signal.Notify(interrupted, syscall.SIGINT, syscall.SIGTERM)
	stdinClosed := make(chan struct{})
	if optStopOnStdinEOF {
		go func() {
			buf := make([]byte, 256)
			for {
				if _, err := os.Stdin.Read(buf); err != nil {
					close(stdinClosed)
					return
				}
			}
		}()
	}

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "goclient:", err)
			os.Exit(2)
		}
		pprof.StartCPUProfile(f)
	}
	lat = make([]uint32, latBuckets)
	conns = make([]*conn, optN)
	for i := range conns {
		conns[i] = &conn{lastSeq: -1}
	}
	var rssBefore, rssConnected, rssEnd, hwm int64 = -1, -1, -1, -1
	if optServerPID != 0 {
		rssBefore = procStatusKB(optServerPID, "VmRSS")
	}

	// The connect phase: at most --inflight handshakes at a time, all of them within --connect-timeout.
	phaseStarted := monoNs()
	connectCtx, cancelConnect := context.WithTimeout(context.Background(),
		time.Duration(optConnectTimeout*float64(time.Second)))
	defer cancelConnect()
	sem := make(chan struct{}, optInflight)
	go func() {
		for _, c := range conns {
			select {
			case sem <- struct{}{}:
			case <-connectCtx.Done():
				return
			}
			atomic.StoreInt32(&c.state, stateConnecting)
			go run(c, connectCtx, sem)
		}
	}()

	var connectPhaseNs, measureStartedNs, deadlineNs, finishedNs int64
	var serverTicksStart, serverTicksEnd uint64
	var cpuStart, cpuEnd float64
	isInterrupted := false

	beginMeasuring := func() {
		atomic.StoreInt32(&phase, phaseMeasuring)
		measureStartedNs = monoNs()
		deadlineNs = measureStartedNs + int64(optDuration*1e9)
		if optServerPID != 0 {
			serverTicksStart = procCPUTicks(optServerPID)
		}
		cpuStart = cpuSeconds()
		if optStart != "" && optStarts > 0 {
			for _, c := range conns {
				if atomic.LoadInt32(&c.state) == stateOpen {
					for k := 0; k < optStarts; k++ {
						if err := c.ws.WriteMessage(websocket.TextMessage, []byte(optStart)); err != nil {
							setFirstError("send start: %v", err)
							break
						}
					}
					break
				}
			}
		}
	}
	finish := func() {
		atomic.StoreInt32(&phase, phaseDone)
		finishedNs = monoNs()
		cpuEnd = cpuSeconds()
		if optServerPID != 0 {
			serverTicksEnd = procCPUTicks(optServerPID)
			rssEnd = procStatusKB(optServerPID, "VmRSS")
			hwm = procStatusKB(optServerPID, "VmHWM")
		}
	}

	// The phase machine, every 5 ms.
	tick := time.NewTicker(5 * time.Millisecond)
	for atomic.LoadInt32(&phase) < phaseDone {
		select {
		case <-tick.C:
		case <-interrupted:
			isInterrupted = true
		}
		now := monoNs()
		p := atomic.LoadInt32(&phase)
		if isInterrupted {
			if p < phaseMeasuring {
				beginMeasuring()
			}
			finish()
			break
		}
		switch p {
		case phaseConnecting:
			settled := int(atomic.LoadInt32(&opened)+atomic.LoadInt32(&failed)+atomic.LoadInt32(&dropped)) >= optN
			if settled || now-phaseStarted > int64(optConnectTimeout*1e9) {
				connectPhaseNs = now - phaseStarted
				atomic.StoreInt32(&phase, phaseSettling)
				phaseStarted = now
				fmt.Printf("connected %d failed %d\n", atomic.LoadInt32(&opened), atomic.LoadInt32(&failed))
			}
		case phaseSettling:
			// Let the connect snapshots arrive and the server settle (the RSS reading for idle
			// connections is taken at the end of it).
			hold := optHold
			if hold <= 0 {
				hold = 0.5
			}
			if now-phaseStarted > int64(hold*1e9) {
				if optServerPID != 0 {
					rssConnected = procStatusKB(optServerPID, "VmRSS")
				}
				beginMeasuring()
			}
		case phaseMeasuring:
			over := now >= deadlineNs
			stdinGone := false
			if optStopOnStdinEOF {
				select {
				case <-stdinClosed:
					stdinGone = true
					over = true
				default:
				}
			}
			if over {
				// After the duration, wait for the stream to go quiet (events still in flight).
				quietSince := atomic.LoadInt64(&recentMsgNs)
				if quietSince < measureStartedNs {
					quietSince = measureStartedNs
				}
				if stdinGone || now-quietSince > int64(optQuietAfter*1e9) ||
					now >= deadlineNs+int64(optTail*1e9) ||
					atomic.LoadInt32(&opened)-atomic.LoadInt32(&dropped) <= 0 {
					finish()
				}
			}
		}
	}
	tick.Stop()
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	cancelConnect() // handshakes still under way past the end fail; they are not counted below

	// Results, read from the counters as they stand at the end (the kernel closes the sockets).
	var messages, bytes, messagesBefore, bytesBefore, eventsWithTs uint64
	var gaps, gapEvents, outOfOrder, resyncs, snapshots uint64
	var lastMsgNs int64
	connectTimes := make([]int64, 0, optN)
	for _, c := range conns {
		messages += atomic.LoadUint64(&c.messages)
		bytes += atomic.LoadUint64(&c.bytes)
		messagesBefore += atomic.LoadUint64(&c.messagesBefore)
		bytesBefore += atomic.LoadUint64(&c.bytesBefore)
		eventsWithTs += atomic.LoadUint64(&c.eventsWithTs)
		gaps += atomic.LoadUint64(&c.gaps)
		gapEvents += atomic.LoadUint64(&c.gapEvents)
		outOfOrder += atomic.LoadUint64(&c.outOfOrder)
		resyncs += atomic.LoadUint64(&c.resyncs)
		snapshots += atomic.LoadUint64(&c.snapshots)
		if t := atomic.LoadInt64(&c.lastMsgNs); t > lastMsgNs {
			lastMsgNs = t
		}
		if t := atomic.LoadInt64(&c.connectNs); t > 0 {
			connectTimes = append(connectTimes, t/1000)
		}
	}
	sort.Slice(connectTimes, func(a, b int) bool { return connectTimes[a] < connectTimes[b] })
	// "None" prints as bench-client prints it: -1 µs, i.e. -0.001 ms.
	connectPercentile := func(q float64) float64 {
		if len(connectTimes) == 0 {
			return -1 / 1e3
		}
		return float64(connectTimes[int(q*float64(len(connectTimes)-1))]) / 1e3
	}
	connectMax := -1.0
	if len(connectTimes) > 0 {
		connectMax = float64(connectTimes[len(connectTimes)-1]) / 1e3
	}
	// A copy of the histogram (goroutines may still be adding) and its own total, so a percentile
	// never walks past what it counts.
	hist := make([]uint32, latBuckets)
	var histTotal uint64
	for i := range lat {
		hist[i] = atomic.LoadUint32(&lat[i])
		histTotal += uint64(hist[i])
	}
	histTotal += atomic.LoadUint64(&latOverflow)
	latPercentile := func(q float64) float64 {
		if histTotal == 0 {
			return -1 / 1e3
		}
		want := uint64(q * float64(histTotal))
		if want >= histTotal {
			want = histTotal - 1
		}
		var seen uint64
		for i := int64(0); i < latBuckets; i++ {
			seen += uint64(hist[i])
			if seen > want {
				return float64(latValue(i)) / 1e3
			}
		}
		return float64(atomic.LoadInt64(&latMax)) / 1e3
	}
	latMaxMs := -1.0
	if eventsWithTs > 0 {
		latMaxMs = float64(atomic.LoadInt64(&latMax)) / 1e3
	}

	// The rate is over the time from the start command to the last message, as bench-client's.
	window := 0.0
	if lastMsgNs > measureStartedNs {
		window = float64(lastMsgNs-measureStartedNs) / 1e9
	}
	firstMsgS := -1.0
	if f := atomic.LoadInt64(&firstMsgNs); f != 0 {
		firstMsgS = float64(f-measureStartedNs) / 1e9
	}
	measured := messages - messagesBefore
	rate, byteRate := 0.0, 0.0
	if window > 0 {
		rate = float64(measured) / window
		byteRate = float64(bytes-bytesBefore) / window
	}
	measureS := float64(finishedNs-measureStartedNs) / 1e9
	serverCPU, clientCPU := -1.0, -1.0
	if optServerPID != 0 && measureS > 0 {
		serverCPU = float64(serverTicksEnd-serverTicksStart) / userHZ / measureS * 100
	}
	if measureS > 0 {
		clientCPU = (cpuEnd - cpuStart) / measureS * 100
	}
	nOpened, nFailed, nDropped := atomic.LoadInt32(&opened), atomic.LoadInt32(&failed), atomic.LoadInt32(&dropped)
	perConn := int64(-1)
	if nOpened > 0 && rssBefore > 0 && rssConnected > 0 {
		perConn = (rssConnected - rssBefore) * 1024 / int64(nOpened)
	}
	errText, _ := firstError.Load().(string)
	errJSON, _ := json.Marshal(errText)

	fmt.Printf("{\"n\":%d,\"opened\":%d,\"failed\":%d,\"dropped\":%d,"+
		"\"connect_phase_s\":%.3f,\"connect_ms_p50\":%.3f,\"connect_ms_p99\":%.3f,\"connect_ms_max\":%.3f,"+
		"\"messages\":%d,\"messages_before_start\":%d,\"bytes\":%d,"+
		"\"window_s\":%.3f,\"first_msg_s\":%.3f,\"msgs_per_s\":%.0f,\"bytes_per_s\":%.0f,"+
		"\"events_with_ts\":%d,\"lat_ms_p50\":%.3f,\"lat_ms_p99\":%.3f,\"lat_ms_max\":%.3f,"+
		"\"gaps\":%d,\"gap_events\":%d,\"out_of_order\":%d,\"snapshots\":%d,\"resyncs\":%d,"+
		"\"server_cpu_pct\":%.1f,\"client_cpu_pct\":%.1f,"+
		"\"server_rss_kb_before\":%d,\"server_rss_kb_connected\":%d,\"server_rss_kb_end\":%d,"+
		"\"server_hwm_kb\":%d,\"server_rss_bytes_per_conn\":%d,\"first_error\":%s}\n",
		optN, nOpened, nFailed, nDropped,
		float64(connectPhaseNs)/1e9, connectPercentile(0.5), connectPercentile(0.99), connectMax,
		measured, messagesBefore, bytes, window, firstMsgS, rate, byteRate,
		eventsWithTs, latPercentile(0.5), latPercentile(0.99), latMaxMs,
		gaps, gapEvents, outOfOrder, snapshots, resyncs, serverCPU, clientCPU,
		rssBefore, rssConnected, rssEnd, hwm, perConn, string(errJSON))
	if !optQuiet {
		fmt.Fprintf(os.Stderr, "%d/%d open (%d failed, %d dropped), connect p50 %.1f ms p99 %.1f ms; %d msgs in %.2f s "+
			"= %.0f msg/s, %.1f MB/s; latency p50 %.2f ms p99 %.2f ms max %.2f ms; gaps %d; server CPU %.0f%%, client CPU %.0f%%\n",
			nOpened, optN, nFailed, nDropped, connectPercentile(0.5), connectPercentile(0.99), measured, window, rate,
			byteRate/1e6, latPercentile(0.5), latPercentile(0.99), latMaxMs, gaps, serverCPU, clientCPU)
	}
	os.Exit(0)
}
