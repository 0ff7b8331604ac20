package main

import "testing"

// The scanner must read what bench-client reads from Herald's and the peers' messages, and must not
// be fooled where bench-client's prefix search could be: keys in another order, nested keys,
// strings holding quotes and braces.
func TestScanMessage(t *testing.T) {
	cases := []struct {
		name string
		msg  string
		want fields
	}{
		{"herald progress", `{"type":"progress","seq":42,"ts":1764555000123456,"job":"j-1","completed":3,"total":10}`,
			fields{typeSeen: true, hasSeq: true, seq: 42, hasTs: true, ts: 1764555000123456}},
		{"connect snapshot", `{"type":"snapshot","protocol":1,"reason":"connect","epoch":"e","seq":7,"jobs":[]}`,
			fields{typeSeen: true, snapshot: true, reasonSeen: true, hasSeq: true, seq: 7}},
		{"resync snapshot", `{"type":"snapshot","protocol":1,"reason":"resync","epoch":"e","seq":900,"jobs":[{"seq":1}]}`,
			fields{typeSeen: true, snapshot: true, reasonSeen: true, resync: true, hasSeq: true, seq: 900}},
		{"snapshot, seq before reason", `{"seq":5,"jobs":[{"reason":"resync"}],"type":"snapshot","reason":"resync"}`,
			fields{typeSeen: true, snapshot: true, reasonSeen: true, resync: true, hasSeq: true, seq: 5}},
		{"reply, not numbered", `{"type":"accepted","requestId":"r1","job":"j-2","state":"queued"}`,
			fields{typeSeen: true}},
		{"nested seq and ts are not the event's", `{"type":"job","job":{"seq":99,"ts":1,"name":"a\"}{"},"seq":3,"ts":4}`,
			fields{typeSeen: true, hasSeq: true, seq: 3, hasTs: true, ts: 4}},
		{"keys in another order, spaces", `{ "ts" : 10 , "seq" : 11 , "type" : "progress" }`,
			fields{typeSeen: true, hasSeq: true, seq: 11, hasTs: true, ts: 10}},
		{"a string value that looks like a key", `{"type":"log","message":"\"seq\":5","seq":6,"ts":2}`,
			fields{typeSeen: true, hasSeq: true, seq: 6, hasTs: true, ts: 2}},
		{"type snapshotx is not a snapshot", `{"type":"snapshotx","seq":1,"ts":2}`,
			fields{typeSeen: true, hasSeq: true, seq: 1, hasTs: true, ts: 2}},
		{"non-integer seq", `{"type":"progress","seq":1.5,"ts":2}`, fields{typeSeen: true, hasTs: true, ts: 2}},
		{"not an object", `[1,2,3]`, fields{}},
		{"truncated", `{"type":"progress","seq":4,"ts`, fields{typeSeen: true, hasSeq: true, seq: 4}},
		{"empty", ``, fields{}},
	}
	for _, c := range cases {
		if got := scanMessage([]byte(c.msg)); got != c.want {
			t.Errorf("%s: scanMessage(%s) = %+v, want %+v", c.name, c.msg, got, c.want)
		}
	}
}

// Gaps and resyncs per connection, counted as bench-client counts them.
func TestOnMessageCountsGapsAndResyncs(t *testing.T) {
	lat = make([]uint32, latBuckets)
	phase = phaseMeasuring
	c := &conn{lastSeq: -1}
	for _, m := range []string{
		`{"type":"snapshot","reason":"connect","seq":10,"jobs":[]}`,
		`{"type":"progress","seq":11,"ts":0}`,
		`{"type":"progress","seq":14,"ts":0}`, // 12 and 13 missing: one gap of two events
		`{"type":"accepted","job":"j-1"}`,
		`{"type":"snapshot","reason":"resync","seq":100,"jobs":[]}`,
		`{"type":"progress","seq":101,"ts":0}`,
		`{"type":"progress","seq":101,"ts":0}`, // repeated: out of order
	} {
		onMessage(c, []byte(m), 1000, 1)
	}
	if c.gaps != 1 || c.gapEvents != 2 || c.outOfOrder != 1 || c.snapshots != 2 || c.resyncs != 1 ||
		c.messages != 7 || c.eventsWithTs != 4 {
		t.Errorf("counters: %+v", *c)
	}
	if lat[latBucket(1000)] != 4 {
		t.Errorf("latency bucket for 1000 µs holds %d, want 4", lat[latBucket(1000)])
	}
}
