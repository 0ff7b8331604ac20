// gohub: the Go peer. A broadcast hub over gorilla/websocket, as its documentation suggests: one
// goroutine reads each connection, one writes it from a buffered channel (one WriteMessage, so one
// frame and one write, per event), and a hub fans each event out to every channel.
//
// It speaks the part of Herald's protocol the benchmark uses: a snapshot on connect, and a `start`
// command ({"type":"start","kind":"ticker","params":{"rate":R,"duration":D}}) that starts a ticker
// goroutine emitting Herald-shaped progress events with a global `seq` and `ts` (wall clock,
// microseconds since the epoch). Rate 0 is flat out; a full channel makes the ticker wait (the
// slowest client sets the pace, nothing is dropped).
//
// usage: gohub PORT   (0 picks a free one; the first line printed is "port N"). 127.0.0.1 only.
// Built offline from Debian's packages: GO111MODULE=off GOPATH=/usr/share/gocode go build.
package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

type client struct {
	conn *websocket.Conn
	send chan []byte
	done chan struct{}
}

type hub struct {
	mu      sync.Mutex
	seq     uint64
	jobs    int
	clients map[*client]struct{}
}

var upgrader = websocket.Upgrader{
	ReadBufferSize:  4096,
	WriteBufferSize: 4096,
	CheckOrigin:     func(*http.Request) bool { return true },
}

// broadcast numbers one event and hands it to every client, in seq order (under the hub's lock).
func (h *hub) broadcast(job int, completed, total int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	fraction := 0.0
	if total > 0 {
		fraction = float64(completed) / float64(total)
	}
	msg := []byte(fmt.Sprintf(`{"type":"progress","seq":%d,"ts":%d,"job":"j-peerticker%d","completed":%d,"total":%d,"fraction":%s,"message":null,"rate":null,"eta":null}`,
		h.seq, time.Now().UnixMicro(), job, completed, total, strconv.FormatFloat(fraction, 'g', 6, 64)))
	for c := range h.clients {
		select {
		case c.send <- msg:
		case <-c.done:
		}
	}
}

func (h *hub) ticker(rate, duration float64) {
	h.mu.Lock()
	job := h.jobs
	h.jobs++
	h.mu.Unlock()
	var total int64
	if rate > 0 {
		total = int64(rate * duration)
	}
	start := time.Now()
	limit := time.Duration(duration * float64(time.Second))
	if rate > 0 {
		limit += 100 * time.Millisecond
	}
	for i := int64(1); rate == 0 || i <= total; i++ {
		if time.Since(start) > limit {
			break
		}
		if rate > 0 {
			due := start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
			if wait := time.Until(due); wait > 0 {
				time.Sleep(wait)
			}
		}
		h.broadcast(job, i, total)
	}
}

func (h *hub) serve(w http.ResponseWriter, r *http.Request) {
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := &client{conn: conn, send: make(chan []byte, 1024), done: make(chan struct{})}
	h.mu.Lock()
	snapshot := fmt.Sprintf(`{"type":"snapshot","protocol":1,"reason":"connect","epoch":"go-peer","seq":%d,"jobs":[]}`, h.seq)
	c.send <- []byte(snapshot)
	h.clients[c] = struct{}{}
	h.mu.Unlock()

	go func() { // writer
		for {
			select {
			case msg := <-c.send:
				if err := conn.WriteMessage(websocket.TextMessage, msg); err != nil {
					conn.Close()
					return
				}
			case <-c.done:
				return
			}
		}
	}()
	// reader
	for {
		_, data, err := conn.ReadMessage()
		if err != nil {
			break
		}
		var command struct {
			Type   string `json:"type"`
			Params struct {
				Rate     *float64 `json:"rate"`
				Duration *float64 `json:"duration"`
			} `json:"params"`
		}
		if json.Unmarshal(data, &command) != nil || command.Type != "start" {
			continue
		}
		rate, duration := 20.0, 10.0
		if command.Params.Rate != nil {
			rate = *command.Params.Rate
		}
		if command.Params.Duration != nil {
			duration = *command.Params.Duration
		}
		if rate >= 0 && duration > 0 && duration <= 3600 {
			go h.ticker(rate, duration)
		}
	}
	h.mu.Lock()
	delete(h.clients, c)
	h.mu.Unlock()
	close(c.done)
	conn.Close()
}

func main() {
	port := "0"
	if len(os.Args) > 1 {
		port = os.Args[1]
	}
	listener, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gohub:", err)
		os.Exit(1)
	}
	fmt.Printf("port %d\n", listener.Addr().(*net.TCPAddr).Port)
	h := &hub{clients: map[*client]struct{}{}}
	http.HandleFunc("/", h.serve)
	http.Serve(listener, nil)
}
