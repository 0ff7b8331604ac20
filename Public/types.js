// Herald dashboard and client.js — the shapes of the server's messages (docs/protocol.md, docs/rest.md) as
// JSDoc types, in one place, so `tsc --checkJs` (make lint-js) finds a field the code spells differently from the server.
// Nothing runs here; modules import the types with `@typedef {import('./types.js').Job} Job`.

/**
 * @typedef {'queued' | 'waiting' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'interrupted'} JobState
 *
 * @typedef {object} Progress
 * @property {number} [completed]
 * @property {number} [total]
 * @property {number} [fraction] 0…1
 * @property {string | null} [message]
 * @property {number} [rate] per second, in the kind's unit
 * @property {number} [eta] seconds left
 *
 * @typedef {object} Job
 * @property {string} id
 * @property {string} kind
 * @property {string} state a JobState, or one this dashboard does not know yet
 * @property {Record<string, any>} params
 * @property {Progress} progress
 * @property {Record<string, any>} [summary] what a succeeded job found (per kind)
 * @property {string} [error]
 * @property {number} [createdAt] ms since the epoch, the server's clock
 * @property {number} [startedAt]
 * @property {number} [finishedAt]
 * @property {string[]} [after] jobs this one waits for
 * @property {string} [worker] the remote worker running it (docs/workers.md)
 * @property {string} [node] the cluster node running it (docs/scaling.md)
 * @property {number} [attempt] a command job's attempt
 * @property {{ code?: number, signal?: string }} [exit] a command job's exit
 * @property {string} [schedule] the schedule that started it (docs/schedules.md)
 * @property {string} [startedBy] who started it: 'schedule:NAME' for a schedule's job
 * @property {string} [cancelledBy] who cancelled it
 *
 * @typedef {object} ParamSpec a param of a jobs-file kind (docs/jobs.md)
 * @property {string} [type] 'string', 'integer', 'number' or 'boolean'
 * @property {any[]} [enum]
 * @property {any} [default]
 * @property {boolean} [required]
 * @property {number} [minimum]
 * @property {number} [maximum]
 * @property {number} [maxLength]
 * @property {string} [pattern]
 *
 * @typedef {object} KindInfo the snapshot's `limits.kinds[kind]`
 * @property {string} [title]
 * @property {boolean} [command] runs a program here (it has a log)
 * @property {boolean} [refuseWhenBusy]
 * @property {number} [maxConcurrent]
 * @property {Record<string, ParamSpec>} [params]
 *
 * @typedef {object} Limits
 * @property {number} [maxSearchResults]
 * @property {number} [maxSortCount]
 * @property {boolean} [authRequired]
 * @property {Record<string, KindInfo>} [kinds]
 *
 * @typedef {object} Worker a connected remote worker
 * @property {string} name
 * @property {string[]} kinds
 * @property {number} [busy]
 * @property {number} [slots]
 * @property {boolean} [draining]
 *
 * @typedef {object} NewsItem
 * @property {string} id
 * @property {number} [time] ms since the epoch
 * @property {string} [headline]
 *
 * @typedef {object} NewsFeed
 * @property {number} revision
 * @property {NewsItem[]} items newest first
 *
 * @typedef {object} Match a search match
 * @property {string} file
 * @property {number} [line]
 * @property {string} [text]
 *
 * @typedef {object} Results the matches of the newest search, as far as this tab has them
 * @property {string} job
 * @property {Match[]} items
 * @property {number} received
 * @property {boolean} complete
 * @property {boolean} sawEnd
 * @property {number} [generation] changes when the list starts over (views redraw)
 *
 * @typedef {object} LogLine a line of a command job's output
 * @property {string} stream 'stdout' or 'stderr'
 * @property {string} text
 *
 * @typedef {object} Reply the answer to a command: accepted, error or page
 * @property {string} type
 * @property {string} [requestId]
 * @property {string} [job] accepted: the job started
 * @property {string} [state] accepted: the job's state when the reply was made
 * @property {string} [code] error
 * @property {string} [message] error
 * @property {number} [offset] page
 * @property {number} [total] page
 * @property {number} [first] page of a log: the number of the oldest line kept
 * @property {any[]} [values] page of results
 * @property {LogLine[]} [lines] page of a log
 *
 * @typedef {object} Principal who this page is signed in as (`GET /api/session`, docs/security.md)
 * @property {string} name
 * @property {'viewer' | 'operator' | 'admin' | 'worker'} role
 * @property {string} via how it proved itself: session, key, jwt, share, proxy, token, anonymous
 * @property {string[]} [jobs] the only jobs it sees
 * @property {string[]} [kinds] the only kinds it sees and starts
 * @property {number} [expiresAt] ms since 1970
 *
 * @typedef {object} ScheduleLast the last occurrence a schedule handled
 * @property {number} at ms since the epoch
 * @property {string | null} job the job it started (null when skipped or refused)
 * @property {string} outcome the job's state, 'skipped', 'queued' or 'refused: …'
 *
 * @typedef {object} Schedule one entry of `GET /api/schedules` (docs/schedules.md)
 * @property {string} name
 * @property {string} kind
 * @property {Record<string, any>} [params]
 * @property {string} [cron]
 * @property {string} [timezone] with cron
 * @property {string} [every]
 * @property {boolean} paused
 * @property {string} [overlap]
 * @property {string} [catchUp]
 * @property {number} [jitter]
 * @property {number | null} next ms since the epoch, null while paused
 * @property {ScheduleLast | null} last
 * @property {number} fired
 * @property {number} skipped
 * @property {number} missed
 * @property {number} [lateness] seconds
 *
 * @typedef {object} WebhookDelivery one delivery of `GET /api/webhooks` (docs/webhooks.md)
 * @property {string} id the `webhook-id`, the same on every attempt
 * @property {string} job
 * @property {string} event 'succeeded', 'failed', 'cancelled' or 'timedOut'
 * @property {string} status 'pending', 'delivered' or 'givenUp'
 * @property {number} attempts attempts made so far
 * @property {number} createdAt ms since the epoch
 * @property {number | null} nextAttemptAt ms since the epoch; null while an attempt is under way and once done
 * @property {string | null} lastOutcome 'HTTP 200', 'timed out after 10 s', …
 *
 * @typedef {object} Webhook one entry of `GET /api/webhooks`
 * @property {string} webhook its URL, without the query
 * @property {number} delivered
 * @property {number} retried
 * @property {number} givenUp
 * @property {number} pending
 * @property {number} maxAttempts attempts a delivery gets before it is given up
 * @property {WebhookDelivery[]} deliveries the latest, newest first
 *
 * @typedef {object} Status the connection's state, as the header shows it
 * @property {string} state 'connecting', 'live', 'reconnecting', 'offline' or 'closed' (HeraldClient.close())
 * @property {number | null} retryAt ms since the epoch of the next attempt
 * @property {number} [attempt]
 */

export {};

/**
 * What app.js hands every view's mount(): the state, the way to the server, and the one hook views share.
 * @typedef {object} Context
 * @property {import('./store.js').Store} store
 * @property {import('./api.js').Api} api
 * @property {import('./logs.js').LogBook} logBook
 * @property {Array<(row: HTMLElement, job: Job) => void>} rowDecorators other views' additions to a job's row
 *   under Jobs (the log view's Log button), applied whenever the jobs view fills a row
 */
