"""Public/client.js (HeraldClient) on its own, in a real browser: against the real server (start, watch, page,
errors), and with a server's messages fed to it (each event once and in order; a gap asks for a resume).

Run: scripts/pytest Tests/browser/test_client.py -v   (fixtures in conftest.py)
"""

from .corpus import NEEDLE
from .dashboard_page import Dashboard
from .test_dashboard import assert_no_console_errors


def test_start_watch_page_and_refusals_against_the_server(server, browser):
    page = Dashboard(browser(), server.url).open()
    result = page.js(
        """
        const client = new Herald.HeraldClient(location.href);
        // Made before connect(): the command waits for the connection.
        const accepted = client.start('sort', { count: 2000 });
        client.connect();
        const { job } = await accepted;
        const states = [];
        const done = new Promise((resolve) => {
          const stop = client.watchJob(job, (update) => {
            states.push(update.state);
            if (update.state === 'succeeded') { stop(); resolve(update); }
          });
        });
        const finished = await done;
        const firstPage = await client.page(job, { offset: 0, limit: 5 });
        const refusals = [];
        for (const attempt of [() => client.start('no-such-kind', {}), () => client.cancel(job)]) {
          try { await attempt(); refusals.push('resolved'); } catch (error) { refusals.push(error.name + ':' + error.code); }
        }
        const aborted = new AbortController();
        aborted.abort();
        try { await client.start('sort', { count: 10 }, { signal: aborted.signal }); } catch (error) { refusals.push(error.code); }
        client.close();
        try { await client.page(job); } catch (error) { refusals.push(error.code); }
        return { states, fraction: finished.progress.fraction, values: firstPage.values, total: firstPage.total,
                 refusals, status: client.status.state };
        """
    )
    assert result["states"][-1] == "succeeded" and result["fraction"] == 1
    assert result["total"] == 2000 and len(result["values"]) == 5 and result["values"] == sorted(result["values"])
    assert result["refusals"] == ["HeraldError:unknown_kind", "HeraldError:not_cancellable", "aborted", "closed"]
    assert result["status"] == "closed"
    assert_no_console_errors(page)


def test_each_event_once_in_order_and_a_gap_asks_to_resume(server, browser):
    page = Dashboard(browser(), server.url).open()
    result = page.js(
        """
        const client = new Herald.HeraldClient(location.href); // never connected: the messages are fed to it
        const sent = [];
        client.sendNow = (message) => { sent.push(message); return true; };
        const delivered = [];
        client.addEventListener('event', (event) => delivered.push(event.detail.seq));
        const job = (state) => ({ id: 'j-aaaaaaaaaaaa', kind: 'sort', state, params: {},
                                  progress: { completed: 0, total: 4, fraction: 0, message: null }, createdAt: 1 });
        client.receive({ type: 'snapshot', protocol: 1, reason: 'connect', epoch: 'e1', seq: 10, jobs: [job('running')], limits: {} });
        const watched = [];
        client.watchJob('j-aaaaaaaaaaaa', (update) => watched.push(update.state + ':' + update.progress.fraction));
        for (const seq of [9, 10, 11, 11, 13]) {
          client.receive(seq === 11 ? { type: 'progress', seq, job: 'j-aaaaaaaaaaaa', completed: 2, total: 4, fraction: 0.5 }
                                    : { type: 'job', seq, job: job('failed') });
        }
        const afterGap = { delivered: delivered.slice(), sent: sent.slice(), resume: client.resumePoint() };
        client.receive({ type: 'hologram', seq: 12 });
        client.receive({ type: 'job', seq: 13, job: job('succeeded') });
        return { afterGap, delivered, watched, seq: client.seq };
        """
    )
    assert result["afterGap"]["delivered"] == [11], "a repeat or an event past a gap was delivered"
    assert result["afterGap"]["sent"] == [{"type": "resume", "epoch": "e1", "since": 11}]
    assert result["afterGap"]["resume"] == {"epoch": "e1", "since": 11}
    assert result["delivered"] == [11, 12, 13] and result["seq"] == 13
    assert result["watched"] == ["running:0", "running:0.5", "succeeded:0"]
    assert_no_console_errors(page)


def test_a_drop_mid_job_resumes_with_no_event_lost_or_repeated(server, browser):
    # Two clients watch one search against the real server; one's socket is dropped mid-job. It must
    # reconnect, resume from its last seq and deliver exactly the events the undisturbed one did.
    page = Dashboard(browser(), server.url).open()
    result = page.js(
        """
        const watch = () => {
          const client = new Herald.HeraldClient(location.href);
          const seqs = [];
          client.addEventListener('event', (event) => seqs.push(event.detail.seq));
          client.connect();
          return { client, seqs };
        };
        const steady = watch();
        const dropped = watch();
        const opened = (client) => new Promise((resolve) => {
          if (client.isOpen()) { resolve(); return; }
          client.addEventListener('open', () => resolve(), { once: true });
        });
        await Promise.all([opened(steady.client), opened(dropped.client)]);
        const { job } = await steady.client.start('search', { query: '""" + NEEDLE + """' });
        const ended = (client) => new Promise((resolve) => {
          const stop = client.watchJob(job, (update) => {
            if (['succeeded', 'failed', 'cancelled'].includes(update.state)) { stop(); resolve(update.state); }
          });
        });
        const endings = Promise.all([ended(steady.client), ended(dropped.client)]);
        // Mid-job: once the dropped client has seen a few of the job's events, its socket goes.
        await new Promise((resolve) => {
          const check = () => (dropped.seqs.length > 3 ? resolve() : setTimeout(check, 20));
          check();
        });
        const before = dropped.client.connections;
        dropped.client.ws.close();
        const states = await endings;
        const result = { states, steady: steady.seqs, dropped: dropped.seqs, reconnected: dropped.client.connections > before };
        steady.client.close();
        dropped.client.close();
        return result;
        """
    )
    assert result["states"] == ["succeeded", "succeeded"], result["states"]
    assert result["reconnected"], "the dropped client connected again"
    dropped, steady = result["dropped"], result["steady"]
    assert dropped == list(range(dropped[0], dropped[0] + len(dropped))), "gapless and nothing twice across the drop"
    # Both saw the job's events; from the dropped client's first event on, the two lists are the same.
    assert dropped == [seq for seq in steady if seq >= dropped[0]][: len(dropped)]
    assert len(dropped) > 4
