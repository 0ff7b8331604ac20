"""A page object for the Herald dashboard: the selectors and waits the tests share."""

import re

from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ACTIVE = {"queued", "waiting", "running"}

# Console lines a browser writes by itself while a server is away; anything else is a failure.
CONNECTION_NOISE = re.compile(r"WebSocket connection to .* failed|ERR_CONNECTION_REFUSED|net::ERR_")

SET_VISIBILITY = """
const hidden = arguments[0];
Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
document.dispatchEvent(new Event('visibilitychange'));
"""

# Records every value a job's <progress> takes, so a test can tell that a bar advanced without racing it.
RECORD_PROGRESS = """
const log = (window.__progressLog = []);
new MutationObserver((records) => {
  for (const record of records) {
    const bar = record.target;
    if (!(bar instanceof HTMLProgressElement)) continue;
    const row = bar.closest('.job-row');
    log.push({ job: row ? row.dataset.jobId : null, value: bar.hasAttribute('value') ? bar.value : null, max: bar.max });
  }
}).observe(document.getElementById('jobs'), { subtree: true, attributes: true, attributeFilter: ['value', 'max'] });
"""


class Dashboard:
    def __init__(self, driver, url, timeout=30):
        self.driver = driver
        self.url = url
        self.timeout = timeout

    # ---- waiting ----

    def wait(self, condition, timeout=None, message=""):
        def guarded(driver):
            try:
                return condition(driver)
            except (StaleElementReferenceException, ValueError, TypeError):
                return False

        return WebDriverWait(self.driver, timeout or self.timeout, poll_frequency=0.05).until(guarded, message)

    def open(self):
        self.driver.get(self.url)
        self.wait_live()
        return self

    def wait_live(self, timeout=None):
        self.wait(lambda d: self.status_state() == "live", timeout, "the status never said live")

    # ---- elements ----

    def find(self, selector):
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def find_all(self, selector):
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def texts(self, selector):
        """The textContent of every element matching `selector`, in one round trip."""
        return self.driver.execute_script(
            "return Array.from(document.querySelectorAll(arguments[0]), (e) => e.textContent)", selector)

    def count(self, selector):
        return self.driver.execute_script("return document.querySelectorAll(arguments[0]).length", selector)

    def by_id(self, element_id):
        return self.driver.find_element(By.ID, element_id)

    def status_state(self):
        return self.by_id("status").get_attribute("data-state")

    def status_text(self):
        return self.by_id("status").text

    def search_start_enabled(self):
        return self.by_id("search-start").is_enabled()

    def job_ids(self, kind=None):
        selector = ".job-row" + (f'[data-kind="{kind}"]' if kind else "")
        return [row.get_attribute("data-job-id") for row in self.find_all(f"#jobs {selector}")]

    def row(self, job_id):
        return self.find(f'#jobs .job-row[data-job-id="{job_id}"]')

    def has_row(self, job_id):
        return len(self.find_all(f'#jobs .job-row[data-job-id="{job_id}"]')) == 1

    def job_state(self, job_id):
        return self.row(job_id).get_attribute("data-state")

    def progress(self, job_id):
        """(value, max) of the job's <progress>; value None while indeterminate."""
        bar = self.row(job_id).find_element(By.CSS_SELECTOR, "progress.job-progress")
        value = bar.get_attribute("value") if self.driver.execute_script("return arguments[0].hasAttribute('value')", bar) else None
        return (float(value) if value is not None else None, float(bar.get_attribute("max")))

    def progress_fraction(self, job_id):
        value, maximum = self.progress(job_id)
        return 0.0 if value is None or maximum <= 0 else value / maximum

    # ---- actions ----

    def start_search(self, query, case_sensitive=False):
        """Clicks Start and returns the id of the job it created (the newest new search row)."""
        before = set(self.job_ids("search"))
        field = self.by_id("search-query")
        field.clear()
        if query:
            field.send_keys(query)
        box = self.by_id("search-case")
        if box.is_selected() != case_sensitive:
            box.click()
        self.by_id("search-start").click()
        return self.wait_new_job("search", before)

    def wait_new_job(self, kind, before, timeout=None):
        def created(_):
            fresh = [job for job in self.job_ids(kind) if job not in before]
            return fresh[0] if fresh else False

        return self.wait(created, timeout, f"no new {kind} job appeared")

    # ---- kinds from a jobs file (views/kinds.js) and the log view (views/log.js) ----

    def kind_form(self, kind):
        return self.find(f'#kind-forms form[data-kind="{kind}"]')

    def kind_field(self, kind, param):
        return self.find(f'#kind-forms form[data-kind="{kind}"] [data-param="{param}"] :is(input, select)')

    def kind_field_error(self, kind, param):
        return self.find(f'#kind-forms form[data-kind="{kind}"] [data-param="{param}"] .param-error').text

    def kind_start_enabled(self, kind):
        return self.find(f'#kind-forms form[data-kind="{kind}"] .kind-start').is_enabled()

    def start_kind(self, kind, values=None):
        """Fills the kind's form (text and number fields by value), clicks Start, returns the new job's id."""
        before = set(self.job_ids(kind))
        for param, value in (values or {}).items():
            field = self.kind_field(kind, param)
            field.clear()
            field.send_keys(str(value))
        self.find(f'#kind-forms form[data-kind="{kind}"] .kind-start').click()
        return self.wait_new_job(kind, before)

    def open_log(self, job_id):
        self.row(job_id).find_element(By.CSS_SELECTOR, ".job-log").click()
        self.wait(lambda d: self.by_id("log-section").get_attribute("data-job-id") == job_id, message="the log did not open")

    def log_lines(self, stream=None):
        """The text of every line in the log view (of one stream if given), in order."""
        selector = "#log-lines .log-line" + (f".stream-{stream}" if stream else "")
        return self.texts(selector)

    def visible_log_lines(self):
        return self.js("return Array.from(document.querySelectorAll('#log-lines .log-line'))"
                       ".filter((e) => getComputedStyle(e).display !== 'none').map((e) => e.textContent)")

    def log_at_bottom(self):
        return self.js("const l = document.getElementById('log-lines'); return l.scrollHeight - l.scrollTop - l.clientHeight <= 4")

    def record_progress(self):
        self.driver.execute_script(RECORD_PROGRESS)

    def recorded_fractions(self, job_id):
        log = self.driver.execute_script("return window.__progressLog || []")
        return [e["value"] / e["max"] for e in log if e["job"] == job_id and e["value"] is not None and e["max"] > 0]

    def set_hidden(self, hidden):
        self.driver.execute_script(SET_VISIBILITY, hidden)

    def news_ids(self):
        return [item.get_attribute("data-news-id") for item in self.find_all("#news-list .news-item")]

    def console_errors(self, allow=None):
        """SEVERE console lines since the last call, minus those matching `allow`."""
        try:
            entries = self.driver.get_log("browser")
        except WebDriverException:
            return []
        return [e for e in entries if e.get("level") == "SEVERE" and not (allow and allow.search(e.get("message", "")))]

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)
