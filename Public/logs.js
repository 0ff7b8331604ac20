// Herald dashboard — the client's copy of command jobs' output: the lines of `log` events, per job, and
// older lines loaded with `page` (docs/protocol.md). No DOM here.
//
// A job's buffer holds a contiguous run of its kept log. `start` is the server's offset of the buffer's first
// line (offsets count from the oldest line the server keeps), or null until a page reply tells it: the
// buffer's first line is at `total - span`, where span counts the lines streamed into the buffer plus those
// a `log` event said it skipped (they are in the kept log all the same). Each reply is read in its own
// frame (`total` then), so lines falling off the front between two asks do not matter.
// One race is left: a page of a running job may count lines whose `log` event has not reached us yet
// (they are batched); a tab that did not see the job start then shows those few lines twice at the seam.
// Log events do not carry line numbers, so the client cannot tell; a job seen from its start, or one
// that ended, is exact.
(function () {
  'use strict';
  const Herald = (window.Herald = window.Herald || {});

  const MAX_LINES_PER_JOB = 10000; // as many as the server keeps
  const MAX_JOBS = 50;
  const MAX_LINE_CHARS = 8192;

  function cleanLines(lines) {
    if (!Array.isArray(lines)) return [];
    const out = [];
    for (const line of lines) {
      if (line === null || typeof line !== 'object' || typeof line.text !== 'string') continue;
      out.push({ stream: line.stream === 'stderr' ? 'stderr' : 'stdout', text: line.text.slice(0, MAX_LINE_CHARS) });
    }
    return out;
  }

  class LogBuffer {
    constructor(job) {
      this.job = job;
      this.lines = []; // {stream, text, skipped?}
      this.start = null; // the server's offset of lines[0], once known
      this.streamed = 0; // real lines in `lines` (markers for skipped lines not counted)
      this.span = 0; // lines of the kept log the buffer covers: real lines plus the skipped ones
      this.generation = 0; // changes whenever lines were removed or put in front (views redraw)
      this.olderKnownNone = false; // the buffer begins at the oldest kept line
    }

    append(lines, skipped) {
      for (const line of lines) this.lines.push(line);
      this.streamed += lines.length;
      this.span += lines.length + skipped;
      if (skipped > 0) this.lines.push({ stream: 'note', text: skipped + ' lines came too fast to stream', skipped });
      if (this.lines.length > MAX_LINES_PER_JOB) {
        const drop = this.lines.length - MAX_LINES_PER_JOB;
        const removed = this.lines.splice(0, drop);
        const dropped = removed.filter((line) => line.stream !== 'note').length;
        const covered = removed.reduce((sum, line) => sum + (line.stream === 'note' ? line.skipped : 1), 0);
        this.streamed -= dropped;
        this.span -= covered;
        if (this.start !== null) this.start += covered;
        this.olderKnownNone = false;
        this.generation += 1;
      }
    }

    // The range to ask for to go further back: {offset, limit}, or null when nothing older is kept.
    olderRange(pageSize) {
      if (this.start === null) return { offset: 0, limit: pageSize }; // the reply tells where we are
      if (this.start <= 0) return null;
      const offset = Math.max(0, this.start - pageSize);
      return { offset, limit: this.start - offset };
    }

    // A page reply: lines [offset, offset + lines.length) of `total`. Returns 'prepended', 'calibrated'
    // (nothing adjoined our lines; ask again with olderRange) or 'none' (nothing older).
    applyPage(offset, lines, total) {
      if (typeof total !== 'number' || typeof offset !== 'number') return 'none';
      const start = Math.max(0, total - this.span);
      this.start = start;
      if (start === 0) {
        this.olderKnownNone = true;
        return 'none';
      }
      if (offset >= start) return 'calibrated';
      const end = offset + lines.length;
      if (end < start) return lines.length === 0 ? 'none' : 'calibrated'; // a hole between: ask for what adjoins
      const older = cleanLines(lines).slice(0, start - offset);
      if (older.length === 0) return 'none';
      this.lines = older.concat(this.lines);
      this.streamed += older.length;
      this.span += older.length;
      this.start = offset;
      this.olderKnownNone = offset === 0;
      this.generation += 1;
      return 'prepended';
    }
  }

  class LogBook {
    constructor() {
      this.buffers = new Map(); // job id → LogBuffer, oldest first
      this.listener = () => {};
    }

    onChange(listener) {
      this.listener = listener;
    }

    get(job) {
      let buffer = this.buffers.get(job);
      if (!buffer) {
        buffer = new LogBuffer(job);
        this.buffers.set(job, buffer);
        while (this.buffers.size > MAX_JOBS) this.buffers.delete(this.buffers.keys().next().value);
      }
      return buffer;
    }

    has(job) {
      return this.buffers.has(job);
    }

    // A job seen from its creation: its log starts at offset 0.
    sawCreated(job) {
      const buffer = this.get(job);
      if (buffer.lines.length === 0) {
        buffer.start = 0;
        buffer.olderKnownNone = true;
      }
    }

    // A `log` event (already checked in order by the store).
    applyEvent(message) {
      if (typeof message.job !== 'string') return;
      const lines = cleanLines(message.lines);
      const skipped = typeof message.skipped === 'number' && message.skipped > 0 ? message.skipped : 0;
      if (lines.length === 0 && skipped === 0) return;
      this.get(message.job).append(lines, skipped);
      this.listener(message.job);
    }

    // A snapshot: events may have been missed, so what we hold may have holes; start over.
    clear() {
      this.buffers.clear();
    }
  }

  Herald.LogBook = LogBook;
})();
