/// The texts `--help` prints. Kept beside the commands they describe; docs/operations.md repeats them.
enum Help {
    static let overview = """
        herald — run long jobs on worker threads and stream their progress to every watcher

        Usage:
          herald [serve] [options]        run the server (the default command)
          herald watch [URL]              live progress bars for every job, in the terminal
          herald start KIND [options] [URL]   start a job; --wait follows it to the end
          herald cancel ID [URL]          cancel a job
          herald share ID [--for 1h] [URL]  make a view-only link to one job (docs/security.md)
          herald logs ID [--follow] [URL] print a job's output (jobs of your own kinds); --follow to its end
          herald jobs check FILE          check a jobs file (your own job kinds) without serving
          herald work --server URL --jobs FILE   run jobs of your own kinds for a server, on this machine
          herald schedules list [URL]     a server's schedules; pause|resume|run NAME [URL] controls one
          herald schedules next EXPR      when a cron expression (or `every 10m`) fires next
          herald users add|remove|list    the people of a users file (--users FILE or $HERALD_USERS)
          herald keys add|revoke|list     the API keys of a users file
          herald --version

        URL is the server: http://HOST:PORT or https://HOST:PORT (ws:// and wss:// work too); it
        defaults to ws://127.0.0.1:8080/ws. With https, --ca FILE trusts a private CA.
        Run `herald COMMAND --help` for a command's options.
        """

    static let serve = """
        Usage: herald serve [options]

        Listening
          --host ADDR              IPv4 address to bind, 0.0.0.0 for all (default 127.0.0.1)
          --port N                 port; 0 picks a free one (default 8080)
          --public DIR             dashboard folder (default: $HERALD_PUBLIC, ./Public, or the one installed beside the binary)
          --max-connections N      WebSocket connections at once (default 10000)
          --io-threads N           service threads, each serving its share of the connections from one
                                   shared ring, 1 to 16 (default: the number of cores, at most 16)
          --max-message-bytes N    largest inbound message (default 65536; larger closes with 1009)
          --ring-bytes N           bytes of events kept for all clients; one further behind is resynced (default 4194304)
          --ping-after SECONDS     ping a connection silent this long (default 10)
          --hangup-after SECONDS   drop a connection silent this long, pings unanswered (default 30)
          --outbox-bytes N         a client's own pending replies, above which refusals of its commands are dropped (default 1048576)
          --allow-origin ORIGIN    also accept WebSocket handshakes from this Origin, and let it import /client.js (repeatable; * for any)
          --token TOKEN            require this token to start or cancel jobs and pause, resume or run schedules (or $HERALD_TOKEN)
          --token-file FILE        read the token from FILE
          --tls-cert FILE          PEM certificate: serve https and wss on the same port (with --tls-key)
          --tls-key FILE           PEM private key for --tls-cert
          --echo                   test only: /echo echoes every message (for the Autobahn suite)
          --heap-trim-interval S   give free heap memory back to the kernel every S seconds; 0: never (default 30)

        Jobs
          --data-dir DIR           history and sort data (default ./.herald)
          --recent-jobs N          finished jobs kept in memory and snapshots; older ones are archived (default 500)
          --history-jobs N         archived finished jobs kept on disk, in rotated files; 0: none (default 100000)
          --request-ids N          starts' requestIds remembered, so a start sent again makes no second job
                                   (default 10000)
          --search-root DIR        what `search` looks through (default: the working directory)
          --workers N              jobs running at once (default: the number of cores)
          --search-limit N         searches at once; more are refused as busy (default 1)
          --max-results N          search matches kept per job (default 1000)
          --search-threads N       threads one search scans on, 1 to 64; matches come in file and line
                                   order whatever N (default: the number of cores, at most 16)
          --kept-results-bytes N   bytes of kept matches (as JSON) in all; past it the oldest finished jobs'
                                   matches are dropped, the jobs stay (default 4194304)
          --sort-cache-bytes N     bytes of sort data (numbers-*.bin, sorted-*.bin) kept in the data dir;
                                   past it the least recently used files go, never one in use; 0: no
                                   bound (default 1073741824)
          --progress-rate N        progress events per second per job (default 20)
          --event-log-size N       events kept for resuming clients (default 10000)
          --event-log-bytes N      at most this many bytes of them, encoded (default 16777216)
          --news-interval SECONDS  background news fetch period (default: off)
          --news-probability P     chance a fetch finds news, 0..1 (default 0.5)
          --news-seed N            seed the simulated news server (tests)
          --jobs FILE              your own job kinds: programs declared in a jobs file (or $HERALD_JOBS; docs/jobs.md)
          --bench                  enable the `ticker` job kind for benchmarks

        Identities (docs/security.md): with any of them on, anonymous access is off
          --users FILE             users (who sign in to the dashboard) and API keys; made with `herald users` and
                                   `herald keys`, read again on SIGHUP and when it changes (or $HERALD_USERS)
          --session-idle D         a sign-in unused this long ends, like 12h or 30m (default 12h)
          --jwt-key FILE           verify JWTs your application mints: an HS256/384/512 secret (32 bytes or more)
                                   or an RSA/EC public key in PEM (repeatable)
          --jwks FILE              verify JWTs against the keys of this JWKS document (repeatable)
          --jwt-audience AUD       refuse JWTs whose aud does not name AUD
          --jwt-issuer ISS         refuse JWTs whose iss is not ISS
          --trust-user-header NAME the header a trusted proxy names its signed-in user in (X-Forwarded-User)
          --trusted-proxy CIDR     believe that header only from these addresses (repeatable; 10.0.0.0/8, ::1)
          --proxy-role ROLE        the role of the users the proxy names: viewer, operator or admin (default operator)
          --public-view            with identities on, still let anyone watch, as a viewer

        Workers (herald work on other machines; docs/workers.md)
          --worker-token TOKEN     workers must present this token (or $HERALD_WORKER_TOKEN); without it,
                                   workers are taken from loopback only
          --worker-lease SECONDS   a worker silent this long loses its jobs to a retry (default 30)

        Webhooks (the jobs file's "notify"; docs/webhooks.md)
          --webhook-retry-scale F  multiply every retry delay by F (0.000001 to 1; default 1): for tests
          --webhook-timeout S      whole seconds one delivery attempt may take (1 to 10; default 10)

        Cluster (several nodes, one stream, through Redis Streams; docs/scaling.md)
          --redis URL              be a node of the cluster at redis://[USER:PASSWORD@]HOST:PORT[/DB]; the
                                   server does not start when Redis cannot be reached or refuses the
                                   login (exit 2); the password is never logged
          --redis-password-file F  the Redis password (AUTH) from file F, not the command line
          --node NAME              this node's name, unique in the cluster (default: the host name)
          --redis-prefix PREFIX    the cluster's keys in Redis begin with it (default herald:)
          --node-lease SECONDS     the lease on each job a node holds: a job its node did not renew
                                   this long is taken over by another node (default 10)
          --audit-stream-size N    about how many audit events of every node the cluster's shared
                                   audit keeps in Redis, for GET /api/audit on any node (default 100000)

        Operation
          --grace SECONDS          on SIGTERM, how long running jobs may finish before they are cancelled (default 5)
          --log-level LEVEL        error, warning, info or debug (default info)
          --help                   this text

        The first line printed is the dashboard's URL. SIGINT or SIGTERM stops gracefully (exit 0).
        """

    static let logs = """
        Usage: herald logs ID [--follow] [--token TOKEN] [--ca FILE] [URL]

        Prints the kept log of a job of your own kinds (the last 10,000 lines): stdout lines to stdout,
        stderr lines to stderr.
          --follow    go on printing new lines until the job ends; then exit 0 when it succeeded,
                      1 when it failed, 3 when it was cancelled or interrupted
          URL         the server, as for `herald watch` (default ws://127.0.0.1:8080/ws)
        Exit code 2: bad usage, no connection, no such job, or a job that keeps no log.
        """

    static let jobs = """
        Usage: herald jobs check FILE

        Reads a jobs file as `herald serve --jobs FILE` would, without serving: every kind's command,
        params, limits and placeholders, every schedule (docs/schedules.md) and every notify entry
        (docs/webhooks.md). Exit 0 and a line per kind, schedule and webhook when the file is usable;
        exit 2 and one line naming the file, the kind or schedule, and the problem when it is not.
        The format: docs/jobs.md.
        """

    static let schedules = """
        Usage: herald schedules next EXPR [--timezone ZONE] [--after EPOCH] [--count N]
               herald schedules next --batch
               herald schedules list [--token TOKEN] [--ca FILE] [URL]
               herald schedules pause|resume|run NAME [--token TOKEN] [--ca FILE] [URL]

        A server's schedules (the `schedules` of its jobs file):
          list              a table: name, rule (cron expression and zone, or interval), paused, the next
                            run and the last one (its time, outcome and job) in this machine's local time,
                            and how many occurrences fired, were skipped and were missed
          pause NAME        no occurrence fires until resumed (kept across the server's restarts)
          resume NAME       occurrences fire again from now on; prints the next run
          run NAME          starts the schedule's job now and prints its id
          --token TOKEN     the server's control token, for pause, resume and run (or $HERALD_TOKEN)
          --ca FILE         with https/wss: trust the CA certificates in this PEM file instead of the system's
          URL               the server, as for `herald watch` (default ws://127.0.0.1:8080/ws)
        Exit 0 when done, 1 when the server refused (a schedule it does not have, whose names it
        lists; a missing token; a kind too busy to start), 2 for bad usage or no connection.

        When an expression fires, without a server:
          next EXPR         one line per fire time: the local time with its offset (ISO 8601) and epoch
                            seconds. EXPR is a five-field cron expression ("30 2 * * *",
                            "*/15 9-17 * * MON-FRI", "@daily") or an interval ("every 10m", "every 1h30m")
          --timezone ZONE   an IANA time zone of the system's tz database (default UTC)
          --after EPOCH     the fire times strictly after this instant, in epoch seconds (default now)
          --count N         how many fire times (default 1)
          --batch           many questions at once: each stdin line EXPR<TAB>ZONE<TAB>EPOCH is answered by
                            one line: the next fire's epoch seconds, "none", or "error: ..."
        Exit 2 and a line naming the field and the bad token when EXPR cannot be read.
        The syntax, time zones, DST rules and how schedules fire: docs/schedules.md.
        """

    static let watch = """
        Usage: herald watch [--once] [--token TOKEN] [--ca FILE] [URL]

        Draws a live bar per job (kind, params, bar, percent, rate, ETA, state), redrawn in place.
        When stdout is not a terminal it prints one line per event instead, so it can be piped.
        Reconnects and resumes by itself. Ctrl-C exits (0). A refused TLS certificate exits 1.
          URL        http://HOST:PORT, https://HOST:PORT, ws:// or wss:// (default ws://127.0.0.1:8080/ws)
          --once     exit when the snapshot has been printed (with a pipe: a listing of jobs)
          --token T  a key, a JWT or a share link's token, where the server needs one (or $HERALD_TOKEN);
                     a refused or ended credential exits 1, saying so
          --ca FILE  with https/wss: trust the CA certificates in this PEM file instead of the system's
        """

    static let start = """
        Usage: herald start KIND [--param KEY=VALUE]... [--after ID]... [--wait] [--token TOKEN] [--ca FILE] [URL]

        Starts a job and prints its id. KIND is search, sort, fetch, or a kind from the server's jobs file.
          --param KEY=VALUE   a job parameter; numbers and true/false are typed (search: query, caseSensitive, path; sort: count)
          --after ID          run after this job succeeded (repeatable)
          --wait              follow the job to its end: exit 0 when it succeeded, 1 when it failed,
                              3 when it was cancelled or interrupted
          --token TOKEN       the server's control token (or $HERALD_TOKEN)
          --ca FILE           with https/wss: trust the CA certificates in this PEM file instead of the system's
          URL                 the server, as for `herald watch` (default ws://127.0.0.1:8080/ws)
        Exit code 2: bad usage, no connection (a refused TLS certificate included), or the server
        refused the job (the reason is printed).
        """

    static let cancel = """
        Usage: herald cancel ID [--token TOKEN] [--ca FILE] [URL]

        Cancels a queued, waiting or running job. Exit 0 when the server accepted, 2 otherwise.
          --token TOKEN  the server's control token (or $HERALD_TOKEN)
          --ca FILE      with https/wss: trust the CA certificates in this PEM file instead of the system's
          URL            the server, as for `herald watch` (default ws://127.0.0.1:8080/ws)
        """

    static let share = """
        Usage: herald share ID [--for DURATION] [--token TOKEN] [URL]

        Makes a signed, expiring, view-only link to one job and prints its URL alone on stdout: a page with
        that job's progress and log, for someone with no account. Exit 0 done, 1 refused, 2 no server.
          --for DURATION  how long the link works, like 30m, 12h, 7d or 2w (default 1d; at most 30d)
          --token TOKEN   an operator's or admin's key or JWT, or the control token (or $HERALD_TOKEN)
          URL             the server (default http://127.0.0.1:8080)
        Revoke a link with DELETE /api/shares/ID, or every link with DELETE /api/shares.
        """

    static let work = """
        Usage: herald work --server URL --jobs FILE [options]

        Runs jobs for a server on this machine: the kinds with a `command` in FILE (this machine's own
        jobs file; the server sends only a kind and params, never a command line). Progress, logs,
        cancel, timeouts and retries work as for jobs the server runs itself (docs/workers.md).

          --server URL      the server: http://HOST:PORT or https://HOST:PORT (ws:// and wss:// work too)
          --jobs FILE       the kinds this worker runs (or $HERALD_JOBS; docs/jobs.md)
          --token TOKEN     the server's worker token, if it has one (or $HERALD_WORKER_TOKEN)
          --name NAME       how the dashboard names this worker (default: the host name)
          --slots N         jobs at once (default 1)
          --grace SECONDS   on SIGINT/SIGTERM, how long running jobs may finish before they are cancelled (default 30)
          --ca FILE         trust this PEM CA for an https:// or wss:// server

        It reconnects with capped backoff when the connection drops. SIGINT or SIGTERM: it takes no
        more work, lets running jobs finish within --grace, cancels the rest, reports, exits 0.
        A server that refuses it (a kind it does not declare, params declared differently, a wrong
        token) ends it with status 2.
        """
}
