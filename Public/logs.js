// Herald dashboard — the client's copy of command jobs' output: the lines of `log` events, per job, and
// older lines loaded with `page` (docs/protocol.md). No DOM here.
//
// A job's buffer holds a contiguous run of its kept log. Every line carries `n`, its number in the job's
// kept log as the server counts it: a `log` event says the number of its first line (`first`), and a page
// reply's line at `offset` is number `first + offset` of that reply. So paged and streamed lines join
// exactly: a page adds only the lines before the buffer's first, an event only the lines after its last,
// whatever arrived first (a page of a running job may hold lines whose event is still on its way).

/** @typedef {import('./types.js').LogLine} LogLine */
/** @typedef {{ stream: string, text: string, n?: number, skipped?: number }} BufferLine a line, or a note */

const MAX_LINES_PER_JOB = 10000; // as many as the server keeps
const MAX_JOBS = 50;
const MAX_LINE_CHARS = 8192;

/** @param {unknown} lines @returns {LogLine[]} */
function cleanLines(lines) {
  if (!Array.isArray(lines)) return [];
  const out = [];
  for (const line of lines) {
    if (line === null || typeof line !== 'object' || typeof line.text !== 'string') continue;
    out.push({ stream: line.stream === 'stderr' ? 'stderr' : 'stdout', text: line.text.slice(0, MAX_LINE_CHARS) });
  }
  return out;
}

export class LogBuffer {
  /** @param {string} job */
  constructor(job) {
    this.job = job;
    /** @type {BufferLine[]} */
    this.lines = []; // {stream, text, n} and notes {stream: 'note', text, skipped} for lines not streamed
    /** @type {number | null} */
    this.first = null; // the number of the oldest line the server keeps, as the last page reply said
    /** @type {number | null} */
    this.end = null; // with no line yet: the number the next line gets, as the last page reply said
    this.streamed = 0; // real lines in `lines` (notes not counted)
    this.generation = 0; // changes whenever lines were removed or put in front (views redraw)
    this.olderKnownNone = false; // the buffer begins at the oldest kept line
  }

  // The number of the buffer's first line; with none yet, of the line it will begin with; or null.
  edge() {
    for (const line of this.lines) if (typeof line.n === 'number') return line.n;
    return this.end;
  }

  last() {
    for (let i = this.lines.length - 1; i >= 0; i -= 1) if (typeof this.lines[i].n === 'number') return this.lines[i].n;
    return null;
  }

  // The server's offset of the buffer's first line, once a page reply told where its kept log begins.
  get start() {
    const edge = this.edge();
    return edge === null || this.first === null ? null : Math.max(0, edge - this.first);
  }

  /** @param {LogLine[]} lines @param {number} skipped @param {number} first */
  append(lines, skipped, first) {
    const last = this.last();
    const numbered = lines.map((line, i) => ({ stream: line.stream, text: line.text, n: first + i }));
    const fresh = last === null ? numbered : numbered.filter((line) => line.n > last);
    for (const line of fresh) this.lines.push(line);
    this.streamed += fresh.length;
    if (skipped > 0) this.lines.push({ stream: 'note', text: skipped + ' lines came too fast to stream', skipped });
    if (this.lines.length > MAX_LINES_PER_JOB) {
      const removed = this.lines.splice(0, this.lines.length - MAX_LINES_PER_JOB);
      this.streamed -= removed.filter((line) => line.stream !== 'note').length;
      this.olderKnownNone = false;
      this.generation += 1;
    }
  }

  // The range to ask for to go further back: {offset, limit}, or null when nothing older is kept.
  /** @param {number} pageSize @returns {{ offset: number, limit: number } | null} */
  olderRange(pageSize) {
    if (this.olderKnownNone) return null;
    const edge = this.edge();
    if (edge === null || this.first === null) return { offset: 0, limit: pageSize }; // the reply tells where we are
    const before = edge - this.first;
    if (before <= 0) return null;
    const offset = Math.max(0, before - pageSize);
    return { offset, limit: before - offset };
  }

  // A page reply: lines [offset, offset + lines.length) of `total`, the oldest kept being number `first`.
  // Returns 'prepended', 'calibrated' (nothing adjoined our lines; ask again with olderRange) or 'none'
  // (nothing older).
  /** @param {number} offset @param {unknown[]} lines @param {number} total @param {number} [first] */
  applyPage(offset, lines, total, first) {
    if (typeof total !== 'number' || typeof offset !== 'number') return 'none';
    this.first = typeof first === 'number' ? first : 0;
    if (this.edge() === null || this.lines.every((line) => typeof line.n !== 'number')) this.end = this.first + total;
    const before = this.edge() - this.first; // how many kept lines come before ours
    if (before <= 0) {
      this.olderKnownNone = true;
      return 'none';
    }
    if (offset >= before) return 'calibrated';
    if (offset + lines.length < before) return lines.length === 0 ? 'none' : 'calibrated'; // a hole between
    /** @type {BufferLine[]} */
    const older = cleanLines(lines)
      .slice(0, before - offset)
      .map((line, i) => ({ stream: line.stream, text: line.text, n: this.first + offset + i }));
    if (older.length === 0) return 'none';
    this.lines = older.concat(this.lines);
    this.streamed += older.length;
    this.olderKnownNone = offset === 0;
    this.generation += 1;
    return 'prepended';
  }
}

export class LogBook {
  constructor() {
    /** @type {Map<string, LogBuffer>} job id → its buffer, oldest first */
    this.buffers = new Map();
    /** @type {(job: string) => void} */
    this.listener = () => {};
  }

  /** Hears the job whose lines arrived. @param {(job: string) => void} listener */
  onChange(listener) {
    this.listener = listener;
  }

  /** @param {string} job */
  get(job) {
    let buffer = this.buffers.get(job);
    if (!buffer) {
      buffer = new LogBuffer(job);
      this.buffers.set(job, buffer);
      while (this.buffers.size > MAX_JOBS) this.buffers.delete(this.buffers.keys().next().value);
    }
    return buffer;
  }

  /** @param {string} job */
  has(job) {
    return this.buffers.has(job);
  }

  // A job seen from its creation: its log starts at line 0.
  /** @param {string} job */
  sawCreated(job) {
    const buffer = this.get(job);
    if (buffer.lines.length === 0) {
      buffer.first = 0;
      buffer.end = 0;
      buffer.olderKnownNone = true;
    }
  }

  // A `log` event (already checked in order by the store).
  /** @param {Record<string, any>} message */
  applyEvent(message) {
    if (typeof message.job !== 'string') return;
    const lines = cleanLines(message.lines);
    const skipped = typeof message.skipped === 'number' && message.skipped > 0 ? message.skipped : 0;
    if (lines.length === 0 && skipped === 0) return;
    const buffer = this.get(message.job);
    const first = typeof message.first === 'number' && message.first >= 0 ? message.first : (buffer.last() ?? -1) + 1;
    buffer.append(lines, skipped, first);
    this.listener(message.job);
  }

  // A snapshot: events may have been missed, so what we hold may have holes; start over.
  clear() {
    this.buffers.clear();
  }
}
