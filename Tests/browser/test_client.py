"""Public/client.js (HeraldClient) on its own, in a real browser: against the real server (start, watch, page,
errors), and with a server's messages fed to it (each event once and in order; a gap asks for a resume).

Run: scripts/pytest Tests/browser/test_client.py -v   (fixtures in conftest.py)
"""

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
