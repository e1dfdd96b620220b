#!/usr/bin/env python3
# check_report.py - open a mapprof report.html in the system Chromium (through
# chromedriver and Debian's python3-selenium) and check it the way a developer
# would use it.
#
#   python3 check_report.py MODE REPORT.html OUTDIR [--expect KIND:FILE:LINE:VAR]... [--require-lines]
#   python3 check_report.py selftest OUTDIR
#
# MODE is one of
#   sample   the findings in the page's data appear in the table with their
#            file:line and variable; clicking one shows its snippet with the
#            directive line highlighted; sorting and the kind filter work; the
#            timeline highlights the selected finding
#   xss      a report full of hostile strings: they show as text, nothing runs
#   hostile  a real recording of a program whose path and arguments are hostile
#   big      10 000 findings over 100 000 events: loads and reacts quickly
#   layout   a real recording with many findings and deep source paths, at
#            1280x800 and 1920x1080: the directives to change come first, in
#            savings order, the flat table is one click away, its first row's
#            savings cell is in the viewport, the body does not scroll
#            sideways, no code block or path in the detail pane overflows its
#            box, rows show relative paths (the full one on hover), the host
#            is called "host" and round trips show their flavour; screenshots
#            OUTDIR/report-layout-1280.png and report-layout-1920.png; then at
#            390x844 (a phone): the page does not scroll sideways, no number
#            in a table wraps past two lines, no text cell is squeezed to a
#            few characters, the timeline spans the width, text is at least
#            11 px, no finding's row is taller than 200 px and the page is at
#            most 3 times as tall as at 1280x800; screenshots
#            OUTDIR/report-layout-390.png and report-layout-390-plans.png
#   procs    a report over several databases (one per process): the Processes
#            section lists each process of the data (pid, rank, command, how
#            it ended, its findings), the merged table each merged finding
#            with its process count and ranks (or pids), no single-run section
#            is left, and at 1280x800 the body does not scroll sideways and no
#            cell overflows; screenshot OUTDIR/report-procs-1280.png
#   selftest writes OUTDIR/selftest.html, a page that logs a console error and
#            a warning, throws, opens an alert and a confirm, and loads a remote
#            and a data: image; passes only if each of them is reported, which
#            shows the checks below can fail
# In every mode: no console error or warning, no page error, no dialog, and no
# request other than the page itself.  A screenshot goes to
# OUTDIR/report-MODE.png (the whole page; the viewport in 'big' mode).
# Prints one line per check and ends with 'N passed, N failed'; exits 1 when a
# check failed, 2 on a usage error.
#
# Environment: CHROMIUM (default /usr/bin/chromium), CHROMEDRIVER (default
# /usr/bin/chromedriver).  Python 3.11, the standard library and selenium 4.8
# (Debian 12: apt-get install chromium chromium-driver python3-selenium).

import base64
import functools
import json
import os
import pathlib
import re
import shutil
import sys
import tempfile
import time
import traceback

from selenium import webdriver
from selenium.common.exceptions import (ElementClickInterceptedException, ElementNotInteractableException,
                                        NoAlertPresentException, NoSuchElementException,
                                        StaleElementReferenceException, UnexpectedAlertPresentException)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

# --what KIND:VAR:TEXT: the detail of the finding of KIND on VAR says TEXT (sample mode).
WHATS = []
MODES = ('sample', 'xss', 'hostile', 'big', 'layout', 'procs', 'usm')
USAGE = ('usage: check_report.py sample|xss|big|hostile|layout|procs|usm REPORT.html OUTDIR [--expect KIND:FILE:LINE:VAR]... '
         '[--what KIND:VAR:TEXT]... [--require-lines]\n       check_report.py selftest OUTDIR')
VIEWPORT = (1440, 1000)
ACTION_TIMEOUT = 30     # seconds; playwright's default for click, selectOption, fill, waitForFunction
NO_DETAIL = object()
UNDEFINED = object()

# Hostile strings may hold lone surrogates: print them escaped rather than die.
sys.stdout.reconfigure(errors='backslashreplace', line_buffering=True)

passed = failed = 0


def check(cond, what, detail=NO_DETAIL):
    global passed, failed
    if cond:
        passed += 1
        print(f'ok   {what}')
    else:
        failed += 1
        print(f'FAIL {what}' + ('' if detail is NO_DETAIL else f': {js_str(detail)}'))


def js_str(x):
    """String(x) for the JSON values the checks turn into text (and print)."""
    if isinstance(x, bool):
        return 'true' if x else 'false'
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    if x is None:
        return 'null'
    return str(x)


def to_json(x):
    """JSON.stringify(x), compact."""
    return json.dumps(x, ensure_ascii=False, separators=(',', ':'))


def is_num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def is_pos(x):
    """x > 0 for a JSON value, the way JavaScript compares (undefined > 0 is false)."""
    return is_num(x) and x > 0


# ---------------------------------------------------------------------------
# The browser: Chromium through chromedriver, with what the page does recorded.

class Browser:
    def __init__(self):
        chromium = os.environ.get('CHROMIUM') or '/usr/bin/chromium'
        chromedriver = os.environ.get('CHROMEDRIVER') or '/usr/bin/chromedriver'
        for p in (chromium, chromedriver):
            # Selenium would go looking for a driver to download when its path does not work.
            if not (os.path.isfile(p) and os.access(p, os.X_OK)):
                raise RuntimeError(f'{p} is not an executable file')
        self.profile = tempfile.mkdtemp(prefix='mapprof-chromium-')
        opts = webdriver.ChromeOptions()
        opts.binary_location = chromium
        for a in ('--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
                  '--disable-background-networking', '--disable-component-update', '--disable-sync',
                  '--disable-dev-shm-usage', f'--user-data-dir={self.profile}',
                  f'--window-size={VIEWPORT[0]},{VIEWPORT[1]}'):
            opts.add_argument(a)
        opts.set_capability('goog:loggingPrefs', {'browser': 'ALL', 'performance': 'ALL'})
        # Leave dialogs open: _call() records and dismisses them itself.
        opts.set_capability('unhandledPromptBehavior', 'ignore')
        self.console, self.requests, self.dialogs, self.dismissed = [], [], [], []
        self.page_url = self.nav_start = None
        try:
            self.driver = webdriver.Chrome(service=Service(executable_path=chromedriver), options=opts)
        except BaseException:
            shutil.rmtree(self.profile, ignore_errors=True)
            raise
        # The viewport itself is 1440x1000, as the playwright version's was (the
        # window size alone leaves room for browser chrome even when headless).
        self.driver.execute_cdp_cmd('Emulation.setDeviceMetricsOverride', {
            'width': VIEWPORT[0], 'height': VIEWPORT[1], 'deviceScaleFactor': 1, 'mobile': False})

    def quit(self):
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)

    # Every command goes through _call: a dialog the page opened makes
    # chromedriver refuse commands ('unexpected alert open'); record its text,
    # dismiss it (as the playwright version's dialog handler did) and retry.
    def _call(self, fn, *args):
        for _ in range(20):
            try:
                return fn(*args)
            except UnexpectedAlertPresentException:
                self.dismiss_dialogs()
        return fn(*args)

    def dismiss_dialogs(self):
        while True:
            try:
                alert = self.driver.switch_to.alert
                text = alert.text
                alert.dismiss()
            except NoAlertPresentException:
                break
            self.dismissed.append(text)

    def goto(self, url):
        """Load url, counting only what happens from then on (not the start page)."""
        self._call(self.driver.get, 'about:blank')
        self.drain_logs(record=False)
        self.page_url = url
        self.nav_start = time.monotonic()
        self._call(self.driver.get, url)

    def drain_logs(self, record=True):
        """Move chromedriver's browser and performance logs into console, requests and dialogs."""
        browser = self._call(self.driver.get_log, 'browser')
        perf = self._call(self.driver.get_log, 'performance')
        if not record:
            return
        for e in browser:
            if e.get('level') == 'SEVERE':
                kind = 'pageerror' if e.get('source') == 'javascript' else 'error'
                self.console.append(f'{kind}: {e.get("message")}')
            elif e.get('level') == 'WARNING':
                self.console.append(f'warning: {e.get("message")}')
        for e in perf:
            msg = json.loads(e['message'])['message']
            params = msg.get('params', {})
            if msg.get('method') == 'Network.requestWillBeSent':
                url = params.get('request', {}).get('url', '')
                if url.split('#')[0] != self.page_url:
                    self.requests.append(url)
            elif msg.get('method') == 'Page.javascriptDialogOpening':
                self.dialogs.append(f'{params.get("type")}: {params.get("message")}')

    def finish(self):
        """Dismiss any dialog still open and collect what the logs hold."""
        self.dismiss_dialogs()
        self.drain_logs()
        # Dialogs are seen in the performance log; one seen only when dismissed counts too.
        logged = [d.split(': ', 1)[-1] for d in self.dialogs]
        for text in self.dismissed:
            if text in logged:
                logged.remove(text)
            else:
                self.dialogs.append(f'dialog: {text}')

    # -- page access --

    def js(self, script, *args):
        return self._call(self.driver.execute_script, script, *args)

    def next_frame(self):
        """Wait for the next animation frame and the task after it."""
        self._call(self.driver.execute_async_script,
                   'const done = arguments[arguments.length - 1];'
                   'requestAnimationFrame(() => setTimeout(done, 0));')

    def wait_for(self, script, *args, timeout=ACTION_TIMEOUT, what=None):
        """page.waitForFunction: until script returns something truthy."""
        WebDriverWait(self.driver, timeout, poll_frequency=0.05).until(
            lambda d: self.js(script, *args), what or f'waiting for: {script}')

    def find(self, selector):
        return self._call(self.driver.find_element, By.CSS_SELECTOR, selector)

    def find_all(self, selector):
        return self._call(self.driver.find_elements, By.CSS_SELECTOR, selector)

    def text(self, selector):
        """page.$eval(selector, e => e.textContent); fails when nothing matches."""
        r = self.js('const e = document.querySelector(arguments[0]); return e ? [e.textContent] : null;', selector)
        if r is None:
            raise LookupError(f'no element matches {selector}')
        return r[0]

    def scroll_into_view(self, el):
        """Scroll el to the middle of the viewport, at once, if it is not wholly in view
        (the page asks for smooth scrolling, which would move elements under the mouse)."""
        self.js('const e = arguments[0], r = e.getBoundingClientRect();'
                'if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth)'
                "  e.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});", el)

    def box(self, el):
        """element.boundingBox(): {x, y, width, height} in the viewport."""
        return self.js('const r = arguments[0].getBoundingClientRect();'
                       'return {x: r.x, y: r.y, width: r.width, height: r.height};', el)

    def click(self, locate, what=None):
        """page.click: wait for the element to be there, visible and enabled,
        bring it into view and click it, retrying while something covers it.
        locate is a CSS selector or a function returning the element."""
        if isinstance(locate, str):
            selector = what = locate
            locate = lambda: self.find(selector)   # noqa: E731

        def attempt(_):
            el = locate()
            if el is None or not self._call(el.is_displayed) or not self._call(el.is_enabled):
                return False
            self.scroll_into_view(el)
            self._call(el.click)
            return True
        WebDriverWait(self.driver, ACTION_TIMEOUT, poll_frequency=0.05,
                      ignored_exceptions=(NoSuchElementException, StaleElementReferenceException,
                                          ElementClickInterceptedException, ElementNotInteractableException)
                      ).until(attempt, f'cannot click {what}')

    def select_option(self, selector, value):
        """page.selectOption(selector, value): an option whose value or label is value."""
        sel = self._call(Select, self.find(selector))
        try:
            self._call(sel.select_by_value, value)
        except NoSuchElementException:
            self._call(sel.select_by_visible_text, value)

    def fill(self, selector, text):
        """page.fill: replace the field's text with real key presses, so that
        the page's 'input' listener runs (element.clear() sends no 'input')."""
        el = self.find(selector)
        self._call(el.send_keys, Keys.CONTROL, 'a')
        self._call(el.send_keys, text if text else Keys.BACKSPACE)

    def mouse(self, el, steps):
        """Mouse actions on el at points given from its top left corner, as
        ('move', x, y[, n]), ('down',) or ('up',); a move of n steps goes there
        in n even moves, like playwright's mouse.move(..., {steps: n})."""
        r = self.box(el)
        cx, cy = r['width'] / 2, r['height'] / 2      # selenium 4 offsets are from the centre
        chain = ActionChains(self.driver, duration=0)
        at = None
        for s in steps:
            if s[0] == 'move':
                x, y = s[1], s[2]
                n = s[3] if len(s) > 3 else 1
                x0, y0 = at if at else (x, y)
                for i in range(1, n + 1):
                    px, py = x0 + (x - x0) * i / n, y0 + (y - y0) * i / n
                    chain.move_to_element_with_offset(el, round(px - cx), round(py - cy))
                at = (x, y)
            elif s[0] == 'down':
                chain.click_and_hold()
            elif s[0] == 'up':
                chain.release()
        self._call(chain.perform)

    def screenshot(self, path, full_page):
        params = {'format': 'png'}
        if full_page:
            size = self._call(self.driver.execute_cdp_cmd, 'Page.getLayoutMetrics', {})['cssContentSize']
            params.update(captureBeyondViewport=True,
                          clip={'x': 0, 'y': 0, 'width': size['width'], 'height': size['height'], 'scale': 1})
        shot = self._call(self.driver.execute_cdp_cmd, 'Page.captureScreenshot', params)
        pathlib.Path(path).write_bytes(base64.b64decode(shot['data']))


# ---------------------------------------------------------------------------
# Helpers over the page and the report's data.

def loc_text(l):
    """file:line as the page shows it: relative to the source root ('path') where the report gives one."""
    if not l:
        return 'unknown location'
    if l.get('file'):
        return js_str(l.get('path') or l['file']) + (':' + js_str(l['line']) if is_pos(l.get('line')) else '')
    return None


def loc_full(l):
    if not l or not l.get('file'):
        return None
    return js_str(l['file']) + (':' + js_str(l['line']) if is_pos(l.get('line')) else '')


def first_loc(f):
    locs = f.get('locations') or []
    return locs[0] if isinstance(locs, list) and locs else None


def var_name(f):
    v = f.get('variable')
    return v.get('name') if isinstance(v, dict) else None


ROW_JS = ('const id = arguments[0];'
          "const tr = [...document.querySelectorAll('#findings-body tr')].find((t) => t.dataset.id === id);")


def row_ids(b):
    return b.js("return [...document.querySelectorAll('#findings-body tr')].map((t) => t.dataset.id);")


def row_text(b, fid, cls):
    r = b.js(ROW_JS + 'const td = tr && tr.querySelector("td." + arguments[1]); return td ? [td.textContent] : null;',
             fid, cls)
    if r is None:
        raise LookupError(f'no row {fid} with a td.{cls}')
    return r[0]


KIND_LABEL = {'duplicate_transfer': 'Duplicate transfer', 'round_trip': 'Round trip',
              'repeated_alloc': 'Repeated allocation', 'unused_alloc': 'Unused allocation',
              'unused_transfer': 'Unused transfer'}


def kind_label(f):
    return KIND_LABEL.get(f.get('kind')) or f.get('kind')


def collation(b, labels):
    """The browser's localeCompare over these labels, as a table (the page sorts with it)."""
    table = b.js('const l = arguments[0]; return l.map((a) => l.map((c) => a.localeCompare(c)));', labels)
    return {(a, c): table[i][j] for i, a in enumerate(labels) for j, c in enumerate(labels)}


def expected_order(b, findings, key, direction):
    """The order the page should show for a sort key and direction (-1 = descending)."""
    field = {'bytes': 'bytes', 'occurrences': 'occurrences'}.get(key, 'savings_ns')
    if key == 'kind':
        cmp_label = collation(b, list(dict.fromkeys(kind_label(f) for f in findings)))

    def cmp(x, y):
        (i, fa), (j, fb) = x, y
        if key == 'kind':
            d = cmp_label[(kind_label(fa), kind_label(fb))]
        else:
            d = (fa.get(field) or 0) - (fb.get(field) or 0)
        d *= direction
        if not d and key == 'kind':
            d = (fb.get('savings_ns') or 0) - (fa.get('savings_ns') or 0)
        return d or i - j
    return [f['id'] for _, f in sorted(enumerate(findings), key=functools.cmp_to_key(cmp))]


def click_sort(b, key):
    b.click(f'th button.sort[data-sort="{key}"]')
    return b.js('return document.querySelector(arguments[0]).parentNode.getAttribute("aria-sort");',
                f'th button.sort[data-sort="{key}"]')


def select_finding(b, fid):
    fid = str(fid)
    b.click(lambda: b.js(ROW_JS + 'return tr ? tr.querySelector("td.c-kind") : null;', fid), f'the row of {fid}')
    b.wait_for("const d = document.querySelector('#detail-body .d-id'); return d && d.textContent === arguments[0];",
               fid, timeout=5, what=f'the detail of {fid}')


def xss_flag(b):
    """window.__xss, or None while it is undefined."""
    return b.js('return window.__xss === undefined ? null : [String(window.__xss)];')


def timeline_canvas(b):
    els = b.find_all('#timeline canvas')
    return els[0] if els else None


# ---------------------------------------------------------------------------
# The modes.

def sample_checks(b, data, findings, expects, require_lines):
    check(len(findings) > 0, 'the report has findings', len(findings))
    shown = findings[:50]
    ids = row_ids(b)
    check(len(ids) == len(shown), f'the table shows {len(shown)} findings', len(ids))
    by_id = {f['id']: f for f in findings}

    # Every finding: directive file:line and variable, as in the data.
    for f in shown:
        l = first_loc(f)
        want = loc_text(l)
        loc = row_text(b, f['id'], 'c-loc')
        v = row_text(b, f['id'], 'c-var')
        if want:
            check(want in loc, f'{f["id"]} shows {want}', loc)
        if require_lines:
            check(bool(l and l.get('file') and is_pos(l.get('line'))), f'{f["id"]} names a file:line',
                  NO_DETAIL if l is None else to_json(l))
        vname = var_name(f)
        if vname:
            check(v == vname, f'{f["id"]} shows variable {vname}', v)
        if require_lines:
            check(bool(vname), f'{f["id"]} names its variable')
    for e in expects:
        parts = e.split(':')
        kind, file, line = (parts + [None] * 3)[:3]
        vname = ':'.join(parts[3:])
        match = [x for x in findings if x.get('kind') == kind
                 and any(isinstance(l, dict) and file in (l.get('file'), l.get('path'))
                         and js_str(l.get('line')) == line
                         for l in (x.get('locations') or []))
                 and (not vname or var_name(x) == vname)]
        f = match[0] if match else None
        check(f is not None, f'a {kind} finding at {file}:{line} on {vname or "any variable"}')
        if f:
            loc = row_text(b, f['id'], 'c-loc')
            shown_at = loc_text(next(l for l in f['locations'] if file in (l.get('file'), l.get('path'))
                                     and js_str(l.get('line')) == line))
            check(shown_at in loc, f'its row reads {shown_at}', loc)

    # Clicking a finding shows its source with the directive line highlighted.
    for f in shown[:6]:
        fid = f['id']
        select_finding(b, fid)
        sel = b.js("return [...document.querySelectorAll('#findings-body tr.selected')].map((x) => x.dataset.id);")
        check(len(sel) == 1 and sel[0] == fid, f'{fid}: its row is selected', ','.join(sel))
        l = first_loc(f)
        if not l:
            continue
        head = b.text('#detail-body .d-loc')
        if loc_text(l):
            check(head == loc_text(l), f'{fid}: detail names {loc_text(l)}', head)
        sn = l.get('snippet')
        if isinstance(sn, dict) and isinstance(sn.get('lines'), list) and sn['lines'] and is_pos(l.get('line')):
            hl = b.js("const loc = document.querySelector('#detail-body .loc');"
                      "if (!loc) return null;"
                      "return [...loc.querySelectorAll('.code .ln-row.hl')]"
                      "  .map((r) => ({line: r.dataset.line, text: r.querySelector('.src').textContent}));")
            if hl is None:
                raise LookupError('no element matches #detail-body .loc')
            # l.snippet.lines[l.line - l.snippet.first_line], undefined when out of range
            idx = l['line'] - sn['first_line'] if is_num(sn.get('first_line')) else None
            in_range = idx is not None and idx == int(idx) and 0 <= idx < len(sn['lines'])
            want_text = sn['lines'][int(idx)] if in_range else UNDEFINED
            check(len(hl) == 1 and hl[0]['line'] == js_str(l['line']),
                  f'{fid}: snippet highlights line {js_str(l["line"])}', to_json(hl))
            if len(hl) == 1 and want_text is not UNDEFINED:
                check(hl[0]['text'] == (want_text or ' '), f'{fid}: highlighted line is the directive', hl[0]['text'])
        detail = b.text('#detail-body')
        if var_name(f):
            check(var_name(f) in detail, f'{fid}: detail names the variable')
        occ_rows = b.js("return document.querySelectorAll('#detail-body table.occ tbody tr').length;")
        check(occ_rows == min(200, len(f.get('events') or [])), f'{fid}: lists its occurrences', occ_rows)
        if f.get('advice'):
            check(js_str(f['advice']) in detail, f'{fid}: shows its advice')
        tl = data.get('timeline')
        if isinstance(tl, dict) and tl.get('devices') and f.get('events'):
            marked = b.js("return document.querySelectorAll('.tl-label.marked').length;")
            check(marked > 0, f'{fid}: timeline highlights its occurrences', marked)

    # What happened, in words: counts and places in separate phrases (issue 26, item 9).
    for w in WHATS:
        kind, vname, text = (w.split(':', 2) + [''] * 3)[:3]
        f = next((x for x in findings if x.get('kind') == kind and var_name(x) == vname), None)
        check(f is not None, f'a {kind} finding on {vname} (--what)')
        if f:
            select_finding(b, f['id'])
            what = b.text('#detail-body .d-what')
            check(text in what, f'{f["id"]}: what happened says {text!r}', what)
    for f in shown[:20]:
        select_finding(b, f['id'])
        what = b.text('#detail-body .d-what')
        check(not re.search(r'(device|devices) [0-9, ]+ and the host [0-9]', what) and 'on the host' not in what,
              f'{f["id"]}: what happened keeps count and places apart', what)

    # Sorting.
    for key, first in (('bytes', 'descending'), ('occurrences', 'descending'), ('kind', 'ascending'),
                       ('savings', 'descending')):
        direction = click_sort(b, key)
        if direction != first:
            direction = click_sort(b, key)   # savings starts selected: the first click flips it
        check(direction == first, f'sort by {key}: header says {first}', direction)
        want = expected_order(b, findings, key, -1 if first == 'descending' else 1)[:50]
        got = row_ids(b)
        check(got == want, f'sort by {key} {first}', ','.join(got))
        direction = click_sort(b, key)
        want = expected_order(b, findings, key, -1 if direction == 'descending' else 1)[:50]
        got = row_ids(b)
        check(direction != first and got == want, f'sort by {key} {js_str(direction)}', ','.join(got))

    # Kind filter, from the select and from the chips.
    kinds = list(dict.fromkeys(f.get('kind') for f in findings))
    for k in kinds:
        b.select_option('#filter-kind', k)
        ids = row_ids(b)
        want = [f['id'] for f in findings if f.get('kind') == k]
        check(len(ids) == min(50, len(want)) and all(i in want for i in ids), f'filter by kind {k}', ','.join(ids))
    b.select_option('#filter-kind', '')
    check(len(row_ids(b)) == len(shown), 'filter back to all kinds')
    if kinds:
        b.click(f'#kind-chips button[data-kind="{kinds[0]}"]')
        ids = row_ids(b)
        check(len(ids) > 0 and all(by_id[i].get('kind') == kinds[0] for i in ids), f'chip filters to {kinds[0]}')
        b.click(f'#kind-chips button[data-kind="{kinds[0]}"]')
        check(len(row_ids(b)) == len(shown), 'chip clicked again clears the filter')

    # Header.
    cmd = b.text('#run-command')
    argv = (data.get('run') or {}).get('command') or []
    if argv:
        check(argv[-1] in cmd, 'the header shows the command line', cmd)
    kpis = b.js("return [...document.querySelectorAll('.kpi .label')].map((x) => x.textContent);")
    check('Estimated savings' in kpis and 'Predicted speedup' in kpis, 'the header shows savings and speedup',
          ','.join(kpis))

    if require_lines:
        kernels_lanes_checks(b, data, findings)
    overlap_checks(b, data, require_lines)

    # Leave the table sorted by savings, the top finding selected, for the screenshot.
    if click_sort(b, 'savings') != 'descending':
        click_sort(b, 'savings')
    if findings:
        select_finding(b, expected_order(b, findings, 'savings', -1)[0])
        b.js('window.scrollTo(0, 0);')


def kernels_lanes_checks(b, data, findings):
    """Issue 26, item 7: the kernels table, and per-thread lanes in the timeline (a real recording)."""
    ks = data.get('kernels')
    check(isinstance(ks, list) and len(ks) > 0, 'the report has a kernels table', to_json(ks))
    ks = ks if isinstance(ks, list) else []
    check(bool(b.find_all('nav a[href="#sec-kernels"]')), 'the navigation links the kernels')
    rows = b.js("return [...document.querySelectorAll('#kernels-body tr')]"
                ".map((r) => [...r.children].map((c) => c.textContent));")
    check(len(rows) == len(ks), f'the kernels table shows {len(ks)} rows', to_json(rows))
    for k, r in zip(ks, rows):
        where = loc_text(k.get('location'))
        check(r[0] == where, f'kernel row names {where}', r[0])
        check(r[2] == f'{k["launches"]:,}', f'{where}: {k["launches"]} launches', r[2])
        check(r[1] == ('host' if k.get('device') == (data.get('run') or {}).get('host_device')
                       else f'device {k.get("device")}'), f'{where}: its device', r[1])
    tl = data.get('timeline') if isinstance(data.get('timeline'), dict) else {}
    want = []
    for d in tl.get('devices') or []:
        for t in d.get('threads') or []:
            role = t.get('role') or 'thread'
            who = role if role == 'initial thread' else f'{role} {t.get("thread")}'
            want.append(who + (f' \u00b7 tid {t["tid"]}' if is_num(t.get('tid')) else ''))
    check(len(want) > 0, 'the timeline data has per-thread lanes',
          to_json([sorted(d) for d in tl.get('devices') or [] if isinstance(d, dict)]))
    got = b.js("return [...document.querySelectorAll('#timeline .tl-label.tl-thread')].map((x) => x.textContent);")
    check(got == want, 'the timeline shows a lane per thread, named by role and tid', to_json(got))
    check(any(w.startswith('initial thread \u00b7 tid ') for w in got), 'the initial thread is named', to_json(got))
    if findings and findings[0].get('events'):
        select_finding(b, findings[0]['id'])
        marked = b.js("return document.querySelectorAll('#timeline .tl-label.tl-thread.marked').length;")
        check(marked > 0, f'{findings[0]["id"]}: its thread lane is marked', marked)


def fmt_dur(ns):
    """static/js/helpers.js fmtDur()."""
    def trim(v):
        a = abs(v)
        return f'{v:.0f}' if a >= 100 else f'{v:.1f}' if a >= 10 else f'{v:.2f}'
    a = abs(ns)
    if a < 1e3:
        return f'{round(ns)} ns'
    if a < 1e6:
        return trim(ns / 1e3) + ' \u00b5s'
    if a < 1e9:
        return trim(ns / 1e6) + ' ms'
    return trim(ns / 1e9) + ' s'


def overlap_checks(b, data, real):
    """Issue 50, item 4: the timeline header says how much transfer time ran beside kernels (summary.overlap).
    A real recording ('real') must have it; a hand-made fixture may not."""
    ov = (data.get('summary') or {}).get('overlap')
    if ov is None and not real:
        line = b.js("var p = document.getElementById('timeline-overlap'); return p && !p.hidden;")
        check(not line, 'no overlap line without summary.overlap', line)
        return
    check(isinstance(ov, dict), 'report.json has summary.overlap', to_json(ov))
    if not isinstance(ov, dict):
        return
    line = b.js("var p = document.getElementById('timeline-overlap');"
                "return p && !p.hidden && p.offsetParent !== null ? p.textContent : null;")
    both = (ov.get('transfer_ns') or 0) > 0 and (ov.get('kernel_ns') or 0) > 0
    if not both:
        check(line is None, 'no overlap line without transfers and kernels', line)
        return
    want = f'Overlap: {fmt_dur(ov["overlap_ns"])} of {fmt_dur(ov["transfer_ns"])} transfer time beside kernels'
    check(line is not None and line.startswith(want), 'the timeline header shows the overlap', f'{line!r} want {want!r}')
    if (ov.get('nowait_transfer_ns') or 0) > 0:
        want = f'up to {fmt_dur(ov["could_overlap_ns"])} could overlap'
        check(line is not None and want in line, 'the header shows what could overlap', line)
    titles = b.js("return [...document.querySelectorAll('#timeline .tl-dev-title')].map((x) => x.textContent);")
    both = [d for d in ov.get('devices') or [] if (d.get('transfer_ns') or 0) > 0 and (d.get('kernel_ns') or 0) > 0]
    for d in both if len(both) > 1 else []:
        if True:
            want = f'Device {d["device"]} '
            got = [t for t in titles if t.startswith(want)]
            check(len(got) == 1 and f'{fmt_dur(d["overlap_ns"])} of {fmt_dur(d["transfer_ns"])}' in got[0],
                  f'device {d["device"]}: its title shows its overlap', to_json(got))


def xss_checks(b, data, findings):
    flag = xss_flag(b)
    check(flag is None, 'no injected script ran (window.__xss unset)', flag and flag[0])
    injected = b.js("return [...document.querySelectorAll('img, svg, iframe, object, embed, b, i')]"
                    "  .map((x) => x.outerHTML);")
    check(len(injected) == 0, 'no element was created from the data', ' '.join(injected))
    scripts = b.js("return document.querySelectorAll('script').length;")
    check(scripts == 2, 'the page has only its own two scripts', scripts)

    cmd = b.text('#run-command')
    check('</script><img src=x onerror=' in cmd, 'hostile command line shows as text', cmd)
    argv = data['run']['command']
    top = b.text('#top-program')
    check(top == ' '.join(argv), 'top bar shows the command verbatim', top)

    f = findings[0]
    v = row_text(b, f['id'], 'c-var')
    check(v == f['variable']['name'], 'hostile variable name shows as text', v)
    loc = row_text(b, f['id'], 'c-loc')
    check(f['locations'][0]['file'] in loc, 'hostile file name shows as text', loc)
    select_finding(b, f['id'])
    code = b.js("return [...document.querySelectorAll('#detail-body .code .src')].map((x) => x.textContent);")
    lines = f['locations'][0]['snippet']['lines']
    check(len(code) == len(lines) and code[1:2] == lines[1:2], 'hostile source lines show as text', to_json(code))
    detail = b.text('#detail-body')
    check(f['advice'] in detail, 'hostile advice shows as text')
    try:
        dev_title = b.text('.tl-dev-title')
    except LookupError:
        dev_title = ''
    check('<img' in dev_title, 'hostile device type shows as text', dev_title)

    # The finding with a hostile id and an unknown, hostile kind.
    g = findings[1]
    select_finding(b, g['id'])
    check(b.js('return decodeURIComponent(location.hash.slice(1));') == g['id'],
          'hostile id round-trips through the URL fragment')
    badge = b.text('#detail-body .badge')
    check(badge == g['kind'], 'unknown kind shows as text', badge)
    # Hover the timeline: the tooltip is built from data too.
    cv = timeline_canvas(b)
    if cv:
        b.scroll_into_view(cv)
        r = b.box(cv)
        b.mouse(cv, [('move', r['width'] / 2, 12)])
    flag2 = xss_flag(b)
    check(flag2 is None, 'still nothing ran after interacting', flag2 and flag2[0])


def hostile_checks(b, data, findings):
    argv = (data.get('run') or {}).get('command') or []
    check(any('<script>' in a for a in argv) and any('"' in a for a in argv),
          'the recorded command line holds <script> and a double quote', to_json(argv))
    cmd = b.text('#run-command')
    check(all(a in cmd for a in argv), 'every argument shows verbatim as text', cmd)
    injected = b.js("return [...document.querySelectorAll('img, svg, iframe, object, embed')].map((x) => x.outerHTML);")
    check(len(injected) == 0, "no element was created from the program's strings", ' '.join(injected))
    if findings:
        select_finding(b, findings[0]['id'])
    flag = xss_flag(b)
    check(flag is None, "nothing from the program's path or arguments ran", flag and flag[0])


def big_checks(b, data, findings, load_ms):
    check(len(findings) == 10000, 'the report has 10 000 findings', len(findings))
    devices = (data.get('timeline') or {}).get('devices') or []
    events = sum((lane.get('count') or 0) for d in devices for lane in (d.get('lanes') or {}).values())
    check(events >= 100000, 'the timeline covers 100 000+ events', events)
    check(load_ms < 8000, 'the page is ready within 8 s', f'{load_ms} ms')
    nodes = b.js("return document.getElementsByTagName('*').length;")
    check(nodes < 6000, 'the DOM stays small (rows are paginated, the timeline is drawn)', nodes)
    check(len(row_ids(b)) == 50, 'one page of 50 rows')
    info = b.text('#page-info')
    check(info == '1\u201350 of 10,000', 'pager says 1-50 of 10,000', info)
    by_id = {f['id']: f for f in findings}

    def timed(what, fn, limit_ms):
        t = time.monotonic()
        fn()
        b.next_frame()
        ms = round((time.monotonic() - t) * 1000)
        check(ms < limit_ms, f'{what} within {limit_ms} ms', f'{ms} ms')

    timed('sort by bytes', lambda: click_sort(b, 'bytes'), 1500)
    want = expected_order(b, findings, 'bytes', -1)[:50]
    check(row_ids(b) == want, 'sorted by bytes')
    timed('filter by kind', lambda: b.select_option('#filter-kind', 'round_trip'), 1500)
    cnt = b.text('#findings-count')
    check(cnt == '2,000 of 10,000', 'kind filter counts 2,000', cnt)
    timed('next page', lambda: b.click('#page-next'), 1500)
    check(b.text('#page-info').startswith('51'), 'second page')
    fid = row_ids(b)[3]
    timed('open a finding', lambda: select_finding(b, fid), 1500)
    b.fill('#filter-text', 'kernel_007.c')
    b.wait_for("return document.getElementById('findings-count').textContent.includes(' of ');")
    time.sleep(0.3)
    ids = row_ids(b)
    check(len(ids) > 0 and all('kernel_007.c' in by_id[i]['locations'][0]['file'] for i in ids),
          'search by file name', len(ids))
    b.fill('#filter-text', '')
    b.select_option('#filter-kind', '')

    # Timeline: zoom by dragging, hover for a tooltip, zoom to the finding.
    cv = timeline_canvas(b)
    check(cv is not None, 'the timeline is drawn')
    if cv:
        b.scroll_into_view(cv)
        time.sleep(0.6)   # let any smooth scroll the page started finish before taking coordinates
        w = b.box(cv)['width']
        timed('zoom by dragging', lambda: b.mouse(cv, [('move', w * 0.3, 10), ('down',),
                                                        ('move', w * 0.35, 10, 5), ('up',)]), 1500)
        check(not b.js("return document.querySelector('#tl-reset').disabled;"), 'zoomed in (reset enabled)')
        w = b.box(cv)['width']
        b.mouse(cv, [('move', w * 0.5, 30), ('move', w * 0.5 + 2, 31)])
        check(b.js("const t = document.querySelector('#tl-tip'); return !t.hidden && t.textContent.length > 0;"),
              'hovering shows a tooltip')
        timed('zoom to the finding', lambda: b.click('#tl-zoom-finding'), 1500)


LAYOUT_SIZES = ((1280, 800), (1920, 1080))

# Boxes whose text must fit: code blocks, their lines and every path in the detail pane and the plans.
OVERFLOW_JS = """
const sel = '#detail-body .code, #detail-body .code .ln-row, #detail-body .code .src, #detail-body .where,'
  + ' #detail-body .d-loc, #detail-body code, #detail-body .advice, #detail-body .d-what,'
  + ' #detail-body table.occ, #plans-list .plan-loc, #findings-body td.c-loc';
return [...document.querySelectorAll(sel)].filter((e) => e.getClientRects().length)
  .filter((e) => e.scrollWidth > e.clientWidth + (e.tagName === 'CODE' || e.tagName === 'SPAN' ? 1 : 0)
                 && getComputedStyle(e).display !== 'inline')
  .map((e) => e.className + ' ' + e.tagName + ' ' + e.scrollWidth + '>' + e.clientWidth + ': '
       + e.textContent.slice(0, 60));
"""


def no_overflow(b, where):
    bad = b.js(OVERFLOW_JS)
    check(not bad, f'{where}: no code block or path overflows its box', ' | '.join(bad))
    sw = b.js('const d = document.documentElement; return [d.scrollWidth, d.clientWidth];')
    check(sw[0] <= sw[1], f'{where}: the page does not scroll sideways', f'{sw[0]} > {sw[1]}')


def host_named(b, data, where):
    host = (data.get('run') or {}).get('host_device')
    detail = b.text('#detail-body')
    if is_num(host):
        check(f'device {js_str(host)}' not in detail and f'Device {js_str(host)}' not in detail,
              f'{where}: the detail never calls the host device {js_str(host)}', detail[:300])
        stat = b.js("const d = [...document.querySelectorAll('#detail-body .d-stats div')]"
                    ".find((x) => x.querySelector('dt').textContent === 'Devices');"
                    "return d ? d.querySelector('dd').textContent : null;")
        check(stat is not None and js_str(host) not in stat.split(', '), f'{where}: Devices names no host number',
              stat)
        titles = b.js("return [...document.querySelectorAll('.tl-dev-title')].map((x) => x.textContent);")
        check(all(not t.startswith(f'Device {js_str(host)} ') for t in titles), f'{where}: timeline names the host',
              to_json(titles))


def usm_checks(b, data, findings):
    """Nothing mapped (unified shared memory): the page says so where the findings would be (issue 26, item 14)."""
    note = (data.get('summary') or {}).get('nothing_mapped')
    check(isinstance(note, str) and note.startswith('No data was mapped: '), 'report.json says nothing was mapped',
          js_str(note))
    check(not findings, 'no findings', len(findings))
    shown = b.js("const e = document.getElementById('findings-empty');"
                 "return e && !e.hidden && e.classList.contains('nothing-mapped') && e.getClientRects().length > 0"
                 " ? e.textContent : null;")
    check(shown == note, 'the findings table says nothing was mapped, in report.json\'s words', js_str(shown))
    check('do not apply' in (shown or ''), 'and why the mapping findings do not apply', js_str(shown))
    text = b.text('main') if b.find_all('main') else b.text('body')
    check('saw no wasteful data mapping' not in text, 'the page never says the mapping was good', text[:300])
    b.click('#tab-plans')
    plans = b.text('#plans-empty')
    check(note in plans, 'the directives tab says it too', plans)
    b.click('#tab-findings')


def layout_checks(b, data, findings, out_dir):
    plans = data.get('plans') if isinstance(data.get('plans'), list) else []
    check(len(findings) >= 20, 'a recording with many findings', len(findings))
    check(len(plans) >= 2, 'the report has plans (directives to change)', len(plans))
    files = [l.get('file') for f in findings for l in (f.get('locations') or []) if isinstance(l, dict)]
    check(files and all(isinstance(x, str) and x.startswith('/') and x.count('/') >= 6 for x in files),
          'the recorded source paths are deep and absolute', to_json(files[:2]))
    savings = [p.get('savings_ns') or 0 for p in plans]
    check(savings == sorted(savings, reverse=True), 'plans come in savings order in the data', to_json(savings))
    by_id = {f['id']: f for f in findings}
    host = (data.get('run') or {}).get('host_device')
    os.makedirs(out_dir, exist_ok=True)
    heights = {}
    for w, hgt in LAYOUT_SIZES:
        at = f'{w}x{hgt}'
        b._call(b.driver.execute_cdp_cmd, 'Emulation.setDeviceMetricsOverride',
                {'width': w, 'height': hgt, 'deviceScaleFactor': 1, 'mobile': False})
        b.drain_logs()   # keep what the last load logged: goto() starts afresh
        b.goto(b.page_url)
        b.wait_for('return document.querySelector(\'html[data-ready="true"]\') !== null;', timeout=20)
        b.next_frame()
        # The directives to change lead: before the flat table, in the data's order.
        order = b.js("const p = document.getElementById('plans-panel'), t = document.getElementById('findings-panel');"
                     "return [!p.hidden, t.hidden, !!(p.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING)];")
        check(order == [True, True, True], f'{at}: the plans show first, the flat table after them, hidden', order)
        shown = b.js("return [...document.querySelectorAll('#plans-list .plan-loc')].map((e) => [e.textContent, e.title]);")
        want = [[loc_text(p.get('directive')), loc_full(p.get('directive'))] for p in plans[:50]]
        check(shown == want, f'{at}: plans listed in savings order with relative paths, full on hover', to_json(shown))
        # The first plan, opened, lists its findings; its first opens the detail.
        b.click('#plans-list li.plan summary')
        b.wait_for("return document.querySelectorAll('#plans-list li.plan details[open] button.pf').length > 0;",
                   timeout=5)
        ids = b.js("return [...document.querySelectorAll('#plans-list details[open] button.pf')].map((x) => x.dataset.id);")
        check(sorted(ids) == sorted(js_str(i) for i in plans[0].get('findings') or []),
              f'{at}: the first plan lists its findings', ','.join(ids))
        b.click('#plans-list details[open] button.pf')
        b.wait_for("const d = document.querySelector('#detail-body .d-id'); return d && d.textContent === arguments[0];",
                   ids[0], timeout=5)
        b.next_frame()
        no_overflow(b, f'{at}, first plan')
        host_named(b, data, f'{at}, first plan')
        b.js('window.scrollTo(0, 0);')
        b.screenshot(os.path.join(out_dir, f'report-layout-{w}-plans.png'), full_page=False)

        # The flat table, one click away, sorted by savings.
        b.click('#tab-findings')
        check(b.js("return !document.getElementById('findings-panel').hidden;"), f'{at}: one click shows the table')
        rows = row_ids(b)
        check(rows == expected_order(b, findings, 'savings', -1)[:50], f'{at}: the table is sorted by savings',
              ','.join(rows))
        b.js("document.querySelector('#findings-body tr').scrollIntoView({block: 'center', behavior: 'instant'});")
        b.next_frame()
        r = b.js("const c = document.querySelector('#findings-body tr td.c-sav').getBoundingClientRect();"
                 "return [c.left, c.top, c.right, c.bottom, innerWidth, innerHeight];")
        check(r[0] >= 0 and r[1] >= 0 and r[2] <= r[4] and r[3] <= r[5],
              f'{at}: the first row\'s savings cell is in the viewport', to_json(r))
        cells = b.js("return [...document.querySelectorAll('#findings-body tr')].map((t) => {"
                     " const l = t.querySelector('td.c-loc'), k = t.querySelector('td.c-kind .flv');"
                     " return [t.dataset.id, l.querySelector('.where').textContent, l.title, k ? k.textContent : null]; });")
        for fid, where, title, flv in cells:
            f = by_id[fid]
            l = first_loc(f)
            check(not where.startswith('/') and where == loc_text(l) and title == loc_full(l),
                  f'{at}: {fid} reads {loc_text(l)}, {loc_full(l)} on hover', f'{where} / {title}')
            if f.get('kind') == 'round_trip':
                glyph = {'host_device_host': 'host\u2192dev\u2192host',
                         'device_host_device': 'dev\u2192host\u2192dev'}.get(f.get('flavour'))
                check(flv is not None and (glyph is None or glyph in flv), f'{at}: {fid} shows its flavour', flv)
        select_finding(b, rows[0])
        b.next_frame()
        heights[w] = b.js('return document.documentElement.scrollHeight;')
        no_overflow(b, f'{at}, first finding')
        host_named(b, data, f'{at}, first finding')
        if is_num(host):
            devs = by_id[rows[0]].get('devices') or []
            if host in devs:
                stat = b.js("return [...document.querySelectorAll('#detail-body .d-stats dd')].map((x) => x.textContent);")
                check(any('host' in s for s in stat), f'{at}: the detail calls the host "host"', to_json(stat))
        b.js('window.scrollTo(0, 0);')
        b.js("document.getElementById('sec-findings').scrollIntoView({block: 'start', behavior: 'instant'});")
        b.next_frame()
        shot = os.path.join(out_dir, f'report-layout-{w}.png')
        b.screenshot(shot, full_page=False)
        print(f'     screenshot: {shot}')
        if w == 1280:
            columns_fit(b, findings, at)
            look_alikes_told_apart(b, findings, at)
    narrow_checks(b, out_dir, heights.get(1280))
    share_checks(b, data, findings, plans, out_dir)


NARROW = (390, 844)

# The page at a phone's width, measured: what scrolls sideways, the numbers
# in table cells that wrap (lines counted from the text's own boxes, so a
# cell's bar or its row's height does not count), text cells squeezed to a
# few characters a line (under 64 px, and wrapping), the timeline's canvases against their box, the
# smallest text and the tallest row of the findings table.
NARROW_JS = """
const d = document.documentElement;
const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
const lines = (e) => {
  const w = document.createTreeWalker(e, NodeFilter.SHOW_TEXT), tops = [];
  for (let n = w.nextNode(); n; n = w.nextNode()) {
    if (!n.textContent.trim()) continue;
    const r = document.createRange();
    r.selectNodeContents(n);
    for (const b of r.getClientRects())
      if (b.width > 0 && !tops.some((t) => Math.abs(t - b.top) < 3)) tops.push(b.top);
  }
  return tops.length;
};
const numeric = /^[-+\u2212]?\d[\d.,\u00a0\u202f]*\s?(%|[a-zA-Z\u00b5\u03bc\u00d7]{1,3})?$/;
const cells = [...document.querySelectorAll('main table td')].filter(shown);
const tall = cells.filter((e) => numeric.test(e.textContent.trim()) && lines(e) > 2)
  .map((e) => e.closest('table').id + (e.closest('table').className ? '.' + e.closest('table').className : '')
       + ' ' + JSON.stringify(e.textContent.trim()) + ' on ' + lines(e) + ' lines');
const squeezed = cells.filter((e) => { const t = e.textContent.trim(), cs = getComputedStyle(e);
    const inner = e.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    return t.length > 6 && !numeric.test(t) && inner < 64 && lines(e) > 1; })
  .map((e) => e.closest('table').id + ' ' + e.className + ' ' + Math.round(e.clientWidth) + ' px: '
       + JSON.stringify(e.textContent.trim().slice(0, 40)));
const tl = document.getElementById('timeline'), tcs = getComputedStyle(tl);
const tlInner = tl.clientWidth - parseFloat(tcs.paddingLeft) - parseFloat(tcs.paddingRight);
const canvases = [...tl.querySelectorAll('canvas')].map((c) => Math.round(c.getBoundingClientRect().width));
const sizes = [...document.querySelectorAll('body *')].filter((e) => shown(e)
    && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()))
  .map((e) => [parseFloat(getComputedStyle(e).fontSize), e.tagName + '.' + e.className]);
const small = sizes.filter((x) => x[0] < 11).map((x) => x[1] + ' ' + x[0] + ' px');
const rows = [...document.querySelectorAll('#findings-body tr')].filter(shown)
  .map((t) => [t.dataset.id, Math.round(t.getBoundingClientRect().height)]);
return {scrollWidth: d.scrollWidth, clientWidth: d.clientWidth, innerWidth: innerWidth, height: d.scrollHeight,
        tall: tall, squeezed: squeezed, timeline: Math.round(tlInner), canvases: canvases, small: small,
        minFont: Math.min(...sizes.map((x) => x[0])), rows: rows};
"""


def narrow_checks(b, out_dir, height_1280):
    """The page on a phone (issue 48, item 5): at 390 px the flat table once
    broke numbers a digit a line and pushed the kernels and the timeline some
    20 000 px down, and the timeline was 95 px wide."""
    w, hgt = NARROW
    at = f'{w}x{hgt}'
    b._call(b.driver.execute_cdp_cmd, 'Emulation.setDeviceMetricsOverride',
            {'width': w, 'height': hgt, 'deviceScaleFactor': 1, 'mobile': True})
    b.drain_logs()
    b.goto(b.page_url)
    b.wait_for('return document.querySelector(\'html[data-ready="true"]\') !== null;', timeout=20)
    b.next_frame()
    for view in ('plans', 'findings'):
        where = f'{at}, {view}'
        if view == 'findings':
            b.click('#tab-findings')
            rows = row_ids(b)
            if rows:
                select_finding(b, rows[0])     # as at 1280x800, where the height was taken
        b.next_frame()
        m = b.js(NARROW_JS)
        print(f'     {where}: page {m["height"]} px tall, scrollWidth {m["scrollWidth"]} (client {m["clientWidth"]}),'
              f' timeline canvases {m["canvases"]} px in {m["timeline"]} px, smallest text {m["minFont"]} px')
        check(m['scrollWidth'] <= m['clientWidth'] <= w, f'{where}: the page does not scroll sideways',
              f'scrollWidth {m["scrollWidth"]}, clientWidth {m["clientWidth"]}')
        check(not m['tall'], f'{where}: no number in a table cell wraps past two lines', ' | '.join(m['tall'][:8]))
        check(not m['squeezed'], f'{where}: no table cell squeezes its text to a few characters a line',
              ' | '.join(m['squeezed'][:8]))
        check(m['canvases'] and min(m['canvases']) >= 330 and min(m['canvases']) >= 0.9 * m['timeline'],
              f'{where}: the timeline spans the width (at least 330 px)',
              f'canvases {m["canvases"]} in {m["timeline"]} px')
        check(not m['small'], f'{where}: no text under 11 px', ' | '.join(m['small'][:8]))
        if view == 'findings':
            tall_rows = [f'{i} {h} px' for i, h in m['rows'] if h > 200]
            check(m['rows'] and not tall_rows, f'{where}: no finding\'s row is taller than 200 px',
                  ' | '.join(tall_rows[:8]) or 'no rows')
            if height_1280:
                # One column: the detail comes under the table, not beside it.
                check(m['height'] <= 3 * height_1280,
                      f'{where}: the page is at most 3 times as tall as at 1280x800 ({height_1280} px)',
                      f'{m["height"]} px')
        b.js('window.scrollTo(0, 0);')
        shot = os.path.join(out_dir, f'report-layout-{w}' + ('-plans' if view == 'plans' else '') + '.png')
        b.screenshot(shot, full_page=True)
        print(f'     screenshot: {shot}')


def columns_fit(b, findings, at):
    """The Variable and Kind columns show their whole text (issue 26, item 9)."""
    b.js("document.getElementById('tab-findings').click();")
    b.next_frame()
    cut = b.js("return [...document.querySelectorAll('#findings-body td.c-var, #findings-body td.c-kind')]"
               ".filter((e) => e.scrollWidth > e.clientWidth + 1)"
               ".map((e) => e.parentNode.dataset.id + ' ' + e.className + ' ' + e.scrollWidth + '>' + e.clientWidth"
               " + ': ' + e.textContent);")
    check(not cut, f'{at}: no Variable or Kind cell is cut short', ' | '.join(cut))
    names = b.js("return [...document.querySelectorAll('#findings-body tr')].map((t) =>"
                 " [t.dataset.id, (t.querySelector('td.c-var .var-name') || t.querySelector('td.c-var')).textContent]);")
    by_id = {f['id']: f for f in findings}
    bad = [f'{i}: {n}' for i, n in names if var_name(by_id[i]) and var_name(by_id[i]) != n]
    check(not bad, f'{at}: each Variable cell reads the whole variable name', ' | '.join(bad))


def look_alikes_told_apart(b, findings, at):
    """Findings of one kind, directive and variable (a pointer swap makes them) read differently."""
    groups = {}
    for f in findings:
        key = (f.get('kind'), f.get('flavour'), loc_full(first_loc(f)), var_name(f))
        groups.setdefault(key, []).append(f['id'])
    alike = [g for g in groups.values() if len(g) > 1]
    check(alike, f'{at}: the recording has look-alike findings (the swap makes them)', len(alike))
    rows = dict(b.js("return [...document.querySelectorAll('#findings-body tr')].map((t) =>"
                     " [t.dataset.id, t.querySelector('td.c-var').textContent + ' / '"
                     " + t.querySelector('td.c-kind').textContent + ' / ' + t.querySelector('td.c-loc').textContent]);"))
    for g in alike:
        texts = [rows.get(i) for i in g if i in rows]
        check(len(set(texts)) == len(texts), f'{at}: look-alikes {",".join(g)} read differently', to_json(texts))
    by_id = {f['id']: f for f in findings}
    for g in alike:
        addrs = {(by_id[i].get('data') or {}).get('address') for i in g}
        if len(addrs) > 1:
            for i in g:
                a = (by_id[i].get('data') or {}).get('address')
                check(a and a in rows.get(i, ''), f'{at}: {i} names its buffer {a}', rows.get(i))
            break


def media(b, media_type='', features=()):
    b._call(b.driver.execute_cdp_cmd, 'Emulation.setEmulatedMedia',
            {'media': media_type, 'features': [{'name': n, 'value': v} for n, v in features]})
    b.next_frame()
    b.next_frame()


LUMA_JS = """
const luma = (c) => { const m = c.match(/[\\d.]+/g).map(Number);
  const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(m[0]) + 0.7152 * f(m[1]) + 0.0722 * f(m[2]); };
const out = {};
for (const [name, sel] of Object.entries(arguments[0])) {
  const e = document.querySelector(sel);
  if (!e) { out[name] = null; continue; }
  const cs = getComputedStyle(e);
  out[name] = [luma(cs.backgroundColor), luma(cs.color), cs.backgroundColor, cs.color];
}
return out;
"""


def share_checks(b, data, findings, plans, out_dir):
    """Printing, the dark theme and copying a patch (issue 26, item 10)."""
    b._call(b.driver.execute_cdp_cmd, 'Emulation.setDeviceMetricsOverride',
            {'width': 1280, 'height': 800, 'deviceScaleFactor': 1, 'mobile': False})
    b.drain_logs()
    b.goto(b.page_url)
    b.wait_for('return document.querySelector(\'html[data-ready="true"]\') !== null;', timeout=20)

    # Dark: prefers-color-scheme: dark gives dark backgrounds and light text.
    media(b, '', [('prefers-color-scheme', 'dark')])
    sel = {'body': 'body', 'panel': '.panel', 'kpi': '.kpi', 'plan': '#plans-list li.plan summary .plan-loc',
           'tab': '.tab'}
    dark = b.js(LUMA_JS, sel)
    bg_body, fg_body = dark['body'][0], dark['body'][1]
    panel = b.js("return getComputedStyle(document.querySelector('.panel')).backgroundColor;")
    panel_l = b.js(LUMA_JS, {'p': '.panel'})['p'][0]
    check(bg_body < 0.05 and panel_l < 0.08 and fg_body > 0.5,
          'prefers-color-scheme: dark: dark page and panels, light text', to_json(dark) + ' panel ' + panel)
    plan_fg = b.js(LUMA_JS, {'x': '#plans-list .plan-loc'})['x']
    check(plan_fg is not None and plan_fg[1] > 0.4, 'dark: the plans read light on dark', to_json(plan_fg))
    b.js('window.scrollTo(0, 0);')
    b.screenshot(os.path.join(out_dir, 'report-layout-dark.png'), full_page=False)
    media(b, '', [('prefers-color-scheme', 'light')])
    light = b.js(LUMA_JS, {'body': 'body'})
    check(light['body'][0] > 0.8, 'prefers-color-scheme: light: a light page', to_json(light))

    # Copy: each patch has a copy button that puts the patch on the clipboard.
    with_patch = [i for i, p in enumerate(plans) if isinstance(p.get('edit'), dict) and p['edit'].get('patch')]
    check(with_patch, 'some plans carry a patch', len(with_patch))
    if with_patch:
        i = with_patch[0]
        b.click(lambda: b.js("return document.querySelector('#plans-list li.plan[data-plan=\"' + arguments[0] + '\"] summary');",
                             str(i)), f'plan {i}')
        b.wait_for("return !!document.querySelector('#plans-list li.plan[data-plan=\"' + arguments[0] + '\"] .plan-patch');",
                   str(i), timeout=5)
        btn = b.js("return document.querySelector('#plans-list li.plan[data-plan=\"' + arguments[0] + '\"] button.copy');",
                   str(i))
        check(btn is not None, f'plan {i}: its patch has a copy button')
        if btn is not None:
            # (no origin: every origin, file:// included; the test reads back what the page wrote)
            for perm in ('clipboardReadWrite', 'clipboardSanitizedWrite'):
                try:
                    b._call(b.driver.execute_cdp_cmd, 'Browser.grantPermissions', {'permissions': [perm]})
                except Exception:
                    pass
            b.js("window.focus(); window.__copied = null;"
                 "if (navigator.clipboard && navigator.clipboard.writeText) {"
                 "  const write = navigator.clipboard.writeText.bind(navigator.clipboard);"
                 "  navigator.clipboard.writeText = (t) => { window.__copied = t; return write(t); }; }")
            b.click(lambda: btn, 'the copy button')
            b.wait_for("return arguments[0].dataset.copied === 'true' || arguments[0].dataset.copied === 'false';",
                       btn, timeout=5)
            said = b.js("return [arguments[0].dataset.copied, arguments[0].textContent];", btn)
            got = b._call(b.driver.execute_async_script,
                          "const done = arguments[arguments.length - 1];"
                          "navigator.clipboard.readText().then((t) => done([t]), (e) => done(['ERROR ' + e]));")
            # Chromium lets a file:// page write the clipboard but not read it back: then
            # what the page handed the clipboard, which took it (data-copied), is the check.
            if got and got[0].startswith('ERROR '):
                got = [b.js('return window.__copied;')]
            check(said[0] == 'true' and got and got[0] == plans[i]['edit']['patch'],
                  f'plan {i}: the copy button puts the patch on the clipboard', to_json([said] + (got or [])))

    # Print: no navigation, every plan and finding shown, every plan open with its edit.
    b.drain_logs()
    b.goto(b.page_url)
    b.wait_for('return document.querySelector(\'html[data-ready="true"]\') !== null;', timeout=20)
    media(b, 'print')
    try:
        b.wait_for("return document.documentElement.dataset.print === 'true';", timeout=5,
                   what='the page to expand for printing')
    except Exception:
        check(False, 'print: the page says it expanded for printing (html[data-print])')
    shown = b.js("const vis = (s) => [...document.querySelectorAll(s)].filter((e) => e.getClientRects().length > 0).length;"
                 "return {nav: vis('.topbar, .topnav, .tabs, .pager, .kind-chips, .ctl, .d-actions, #tl-zoom-finding, #tl-reset, button.copy'),"
                 " plans: document.querySelectorAll('#plans-list li.plan').length,"
                 " open: document.querySelectorAll('#plans-list li.plan details[open]').length,"
                 " edits: vis('#plans-list .plan-patch'), pf: vis('#plans-list button.pf'),"
                 " rows: vis('#findings-body tr'), plansPanel: vis('#plans-panel'), table: vis('#findings-panel')};")
    n_patch = len([p for p in plans if isinstance(p.get('edit'), dict) and p['edit'].get('patch')])
    n_members = sum(len(p.get('findings') or []) for p in plans)
    check(shown['nav'] == 0, 'print: no navigation, tabs, pager or buttons', to_json(shown))
    check(shown['plans'] == len(plans) and shown['open'] == len(plans) and shown['plansPanel'] == 1,
          f'print: all {len(plans)} plans shown, each open', to_json(shown))
    check(shown['edits'] == n_patch and shown['pf'] == n_members,
          f'print: every plan shows its patch ({n_patch}) and its findings ({n_members})', to_json(shown))
    check(shown['table'] == 1 and shown['rows'] == len(findings),
          f'print: the findings table shows all {len(findings)} findings', to_json(shown))
    b.screenshot(os.path.join(out_dir, 'report-layout-print.png'), full_page=True)
    media(b, '')
    back = b.js("return [document.documentElement.dataset.print || '', document.querySelectorAll('#plans-list details[open]').length,"
                " document.querySelector('.topbar').getClientRects().length];")
    check(back[0] != 'true' and back[1] == 0 and back[2] == 1, 'after printing: the page is back as it was', to_json(back))


def ranges_text(v):
    v = sorted(set(v))
    out, i = [], 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[j + 1] == v[j] + 1:
            j += 1
        out.append(f'{v[i]}\u2013{v[j]}' if j > i else str(v[i]))
        i = j + 1
    return ', '.join(out)


MERGED_ROWS_JS = "return [...document.querySelectorAll('#sec-merged tbody tr')].map((t) => t.dataset.fingerprint);"


def merged_order(b, merged, key, direction):
    field = {'bytes': 'bytes', 'occurrences': 'occurrences', 'processes': 'processes'}.get(key, 'savings_ns')
    if key == 'kind':
        cmp_label = collation(b, list(dict.fromkeys(kind_label(f) for f in merged)))

    def cmp(x, y):
        (i, fa), (j, fb) = x, y
        if key == 'kind':
            d = cmp_label[(kind_label(fa), kind_label(fb))]
        else:
            d = (fa.get(field) or 0) - (fb.get(field) or 0)
        d *= direction
        if not d and key == 'kind':
            d = (fb.get('savings_ns') or 0) - (fa.get('savings_ns') or 0)
        return d or i - j
    return [f['fingerprint'] for _, f in sorted(enumerate(merged), key=functools.cmp_to_key(cmp))]


def merged_interaction(b, merged):
    """The merged findings sort, filter and open a detail with the fix, as the single page's do (item 8)."""
    # Sorting by each column's button, both ways.
    for key, first in (('bytes', 'descending'), ('occurrences', 'descending'), ('processes', 'descending'),
                       ('kind', 'ascending'), ('savings', 'descending')):
        sel = f'#sec-merged th button.sort[data-sort="{key}"]'
        if not b.find_all(sel):
            check(False, f'merged: a sort button for {key}')
            continue
        for attempt in range(2):
            b.click(sel)
            direction = b.js('return document.querySelector(arguments[0]).parentNode.getAttribute("aria-sort");', sel)
            if direction == first:
                break
        got = b.js(MERGED_ROWS_JS)
        want = merged_order(b, merged, key, -1 if first == 'descending' else 1)
        check(direction == first and got == want, f'merged: sort by {key} {first}', to_json(got))
        b.click(sel)
        direction = b.js('return document.querySelector(arguments[0]).parentNode.getAttribute("aria-sort");', sel)
        got = b.js(MERGED_ROWS_JS)
        want = merged_order(b, merged, key, -1 if direction == 'descending' else 1)
        check(direction != first and got == want, f'merged: sort by {key} {js_str(direction)}', to_json(got))
    if b.find_all('#sec-merged th button.sort[data-sort="savings"]'):
        while b.js("return document.querySelector('#sec-merged th button.sort[data-sort=\"savings\"]')"
                   ".parentNode.getAttribute('aria-sort');") != 'descending':
            b.click('#sec-merged th button.sort[data-sort="savings"]')

    # Filtering by kind and by text.
    kinds = list(dict.fromkeys(f.get('kind') for f in merged))
    has_filter = bool(b.find_all('#merged-kind')) and bool(b.find_all('#merged-text'))
    check(has_filter, 'merged: a kind filter and a search field')
    if has_filter:
        for k in kinds:
            b.select_option('#merged-kind', k)
            got = b.js(MERGED_ROWS_JS)
            want = [f['fingerprint'] for f in merged if f.get('kind') == k]
            check(sorted(got) == sorted(want), f'merged: filter by kind {k}', to_json(got))
        b.select_option('#merged-kind', '')
        check(len(b.js(MERGED_ROWS_JS)) == len(merged), 'merged: all kinds again')
        v = next((f.get('variable') for f in merged if f.get('variable')), None)
        if v:
            b.fill('#merged-text', v)
            b.wait_for("return document.querySelectorAll('#sec-merged tbody tr').length < arguments[0] ||"
                       " arguments[0] === arguments[1];", len(merged),
                       len([f for f in merged if v in (f.get('variable') or '') or v in (f.get('file') or '')]),
                       timeout=5)
            time.sleep(0.3)
            got = b.js(MERGED_ROWS_JS)
            want = [f['fingerprint'] for f in merged
                    if v.lower() in ' '.join(str(f.get(x) or '') for x in ('variable', 'file', 'kind')).lower()]
            check(got and set(want) <= set(got) and all(v.lower() in b.js(
                "return [...document.querySelectorAll('#sec-merged tbody tr')].find((t) => t.dataset.fingerprint"
                " === arguments[0]).textContent.toLowerCase();", fp) for fp in got),
                  f'merged: search {v}', to_json(got))
            b.fill('#merged-text', '')
            b.wait_for("return document.querySelectorAll('#sec-merged tbody tr').length === arguments[0];",
                       len(merged), timeout=5)

    # The detail: what happened, how to fix it, and each process it was found in.
    for f in merged[:3]:
        fp = f['fingerprint']
        b.click(lambda: b.js("return [...document.querySelectorAll('#sec-merged tbody tr')]"
                             ".find((t) => t.dataset.fingerprint === arguments[0]);", fp), f'merged row {fp}')
        ok = True
        try:
            b.wait_for("const d = document.getElementById('merged-detail');"
                       "return d && !d.hidden && d.dataset.fingerprint === arguments[0];", fp, timeout=5)
        except Exception:
            ok = False
        check(ok, f'merged {fp}: clicking its row opens its detail')
        if not ok:
            continue
        text = b.text('#merged-detail')
        check(kind_label(f) in text and (not f.get('variable') or f['variable'] in text)
              and (not f.get('file') or f'{f["file"]}:{f["line"]}' in text),
              f'merged {fp}: the detail names the kind, variable and line', text[:200])
        check('How to fix' in text and (not f.get('advice') or f['advice'] in text) and 'Typical fix' in text,
              f'merged {fp}: the detail gives the fix advice', text[:400])
        who = f.get('ranks') if isinstance(f.get('ranks'), list) else f.get('pids') or []
        prow = b.js("return [...document.querySelectorAll('#merged-detail table.mprocs tbody tr')]"
                    ".map((t) => t.children[0].textContent);")
        check(sorted(prow) == sorted(js_str(x) for x in who), f'merged {fp}: the detail lists its processes',
              to_json(prow))


def proc_links(b, procs):
    """Each process links to its own report, a page that opens from file:// (item 8)."""
    links = b.js("return [...document.querySelectorAll('#sec-processes tbody tr')].map((t) => {"
                 " const a = t.querySelector('a.proc-report'); return a ? [a.getAttribute('href'), a.href] : null; });")
    check(links and all(links), 'every process links to its own report', to_json(links))
    page = b.page_url
    for p, l in zip(procs, links):
        if not l:
            continue
        check(':' not in l[0].split('/')[0] and l[1].startswith('file://'),
              f'process {js_str(p.get("pid"))}: a relative link', to_json(l))
        from urllib.parse import urlparse, unquote
        path = unquote(urlparse(l[1]).path)
        check(os.path.isfile(path), f'process {js_str(p.get("pid"))}: {l[0]} exists', path)
    for p, l in list(zip(procs, links))[:2]:
        if not l:
            continue
        b.drain_logs()
        b.goto(l[1])
        b.wait_for('return document.querySelector(\'html[data-ready="true"]\') !== null;', timeout=20)
        d = json.loads(b.js("return document.getElementById('mapprof-data').textContent;"))
        check(isinstance(d.get('findings'), list) and len(d['findings']) == p.get('findings')
              and b.find_all('#findings-table'),
              f'process {js_str(p.get("pid"))}: its report is its own single-run page ({p.get("findings")} findings)',
              len(d.get('findings') or []))
    b.drain_logs()
    b.goto(page)
    b.wait_for('return document.querySelector(\'html[data-ready="true"]\') !== null;', timeout=20)


def procs_checks(b, data, out_dir):
    procs = [p for p in data.get('processes') or [] if isinstance(p, dict)]
    merged = [f for f in data.get('merged_findings') or [] if isinstance(f, dict)]
    check(len(procs) >= 2, 'the data holds several processes', len(procs))
    check(len(merged) >= 1, 'the data holds merged findings', len(merged))
    check(not b.find_all('#findings-table') and not b.find_all('#timeline'),
          'no single-run section is left (findings table, timeline)')
    heads = b.js("return [...document.querySelectorAll('main h2')].map((x) => x.textContent);")
    check(len(heads) == 2 and heads[0].startswith('Processes') and heads[1].startswith('Merged findings'),
          'the page has a Processes and a Merged findings section', to_json(heads))
    rows = b.js("return [...document.querySelectorAll('#sec-processes tbody tr')].map((t) =>"
                " [...t.children].map((c) => c.textContent));")
    check(len(rows) == len(procs), 'one Processes row per process', f'{len(rows)} rows, {len(procs)} processes')
    # Processes by rank (those without one after, by pid): as a job's ranks read.
    procs = sorted(procs, key=lambda p: (0, p['rank'], p.get('pid') or 0) if is_num(p.get('rank'))
                   else (1, 0, p.get('pid') or 0))
    check([r[0] for r in rows] == [js_str(p.get('pid')) for p in procs], 'the processes are listed by rank (else pid)',
          to_json([r[:2] for r in rows]))
    for p, r in zip(procs, rows):
        argv = [a for a in p.get('argv') or [] if isinstance(a, str)]
        rank = p.get('rank')
        ok = (r[0] == js_str(p.get('pid')) and r[1] == (js_str(rank) if is_num(rank) else '\u2014')
              and (not argv or argv[-1] in r[2]) and (p.get('database') or '') in r[2]
              and r[4].startswith(p.get('ended') or 'unknown') and r[5] == (p.get('status') or 'unknown')
              and r[7] == f"{p.get('findings'):,}")
        check(ok, f"process {js_str(p.get('pid'))}: pid, rank, command, database, how it ended, findings",
              to_json(r))
    proc_links(b, procs)
    mrows = b.js("return [...document.querySelectorAll('#sec-merged tbody tr')].map((t) =>"
                 " [t.dataset.fingerprint].concat([...t.children].map((c) => c.textContent)));")
    check([r[0] for r in mrows] == [f.get('fingerprint') for f in merged],
          'one merged row per merged finding, in the data\'s (savings) order', to_json([r[0] for r in mrows]))
    for f, r in zip(merged, mrows):
        n = f.get('processes')
        who = f.get('ranks') if isinstance(f.get('ranks'), list) else f.get('pids') or []
        word = 'ranks' if isinstance(f.get('ranks'), list) else 'pids'
        want_who = f"{n:,} {'process' if n == 1 else 'processes'} on {word} {ranges_text(who)}"
        lo, hi = f.get('occurrences_min'), f.get('occurrences_max')
        want_occ = f'{n:,} \u00d7 {lo:,}' if lo == hi and n > 1 else f"{f.get('occurrences'):,}"
        where = f"{f.get('file')}:{f.get('line')}" if f.get('file') else 'unknown location'
        ok = (r[3] == want_who and r[4].startswith(want_occ) and r[2] == where
              and (not f.get('variable') or f.get('variable') in r[1]))
        check(ok, f"merged {f.get('fingerprint')}: {want_who}, {want_occ} occurrences at {where}", to_json(r))
    merged_interaction(b, merged)
    b._call(b.driver.execute_cdp_cmd, 'Emulation.setDeviceMetricsOverride',
            {'width': 1280, 'height': 800, 'deviceScaleFactor': 1, 'mobile': False})
    b.next_frame()
    sw = b.js('const d = document.documentElement; return [d.scrollWidth, d.clientWidth];')
    check(sw[0] <= sw[1], '1280x800: the page does not scroll sideways', f'{sw[0]} > {sw[1]}')
    bad = b.js("return [...document.querySelectorAll('.procs-table td, .procs-table')]"
               ".filter((e) => e.scrollWidth > e.clientWidth + 1)"
               ".map((e) => e.className + ' ' + e.scrollWidth + '>' + e.clientWidth + ': ' + e.textContent.slice(0, 60));")
    check(not bad, '1280x800: no cell of the tables overflows', ' | '.join(bad))
    os.makedirs(out_dir, exist_ok=True)
    shot = os.path.join(out_dir, 'report-procs-1280.png')
    b.screenshot(shot, full_page=True)
    print(f'     screenshot: {shot}')


def run_report(b, mode, html_path, out_dir, expects, require_lines):
    b.goto(pathlib.Path(os.path.abspath(html_path)).as_uri())
    b.wait_for('return document.querySelector(\'html[data-ready="true"]\') !== null;', timeout=20,
               what='html[data-ready="true"]')
    load_ms = round((time.monotonic() - b.nav_start) * 1000)
    print(f'     page ready in {load_ms} ms')
    data = json.loads(b.js("return document.getElementById('mapprof-data').textContent;"))
    # report.json ids are integers; the page shows and keys them as text.
    raw = data.get('findings') if isinstance(data.get('findings'), list) else []
    findings = [dict(f, id=f'F{i + 1}' if 'id' not in f else js_str(f['id'])) for i, f in enumerate(raw)]

    if mode == 'procs':
        procs_checks(b, data, out_dir)
        return
    if mode != 'layout' and b.find_all('#tab-findings'):
        # The page leads with the directives to change; these modes check the flat table.
        b.click('#tab-findings')
    if mode == 'sample':
        sample_checks(b, data, findings, expects, require_lines)
    elif mode == 'xss':
        xss_checks(b, data, findings)
    elif mode == 'big':
        big_checks(b, data, findings, load_ms)
    elif mode == 'hostile':
        hostile_checks(b, data, findings)
    elif mode == 'usm':
        usm_checks(b, data, findings)
    elif mode == 'layout':
        layout_checks(b, data, findings, out_dir)
        return

    os.makedirs(out_dir, exist_ok=True)
    shot = os.path.join(out_dir, f'report-{mode}.png')
    b.screenshot(shot, full_page=mode != 'big')
    print(f'     screenshot: {shot}')


# ---------------------------------------------------------------------------
# selftest: a page that does everything the checks forbid.

SELFTEST_PAGE = '''<!doctype html>
<html><head><meta charset="utf-8"><title>check_report.py selftest</title></head>
<body>
<p><button id="go" type="button">confirm</button></p>
<img src="http://example.invalid/x.png" alt="">
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==" alt="">
<script>
console.error('selftest: console.error');
console.warn('selftest: console.warn');
setTimeout(function () { throw new Error('selftest: uncaught'); }, 0);
document.getElementById('go').addEventListener('click', function () { confirm('selftest: confirm'); });
alert('selftest: alert');
document.documentElement.dataset.ready = 'true';
</script>
</body></html>
'''


def run_selftest(b, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    page = os.path.join(out_dir, 'selftest.html')
    pathlib.Path(page).write_text(SELFTEST_PAGE, encoding='utf-8')
    b.goto(pathlib.Path(os.path.abspath(page)).as_uri())
    b.wait_for('return document.querySelector(\'html[data-ready="true"]\') !== null;', timeout=20)
    b.click('#go')
    b.js('return 1;')
    time.sleep(0.3)     # the uncaught exception comes from a timer
    b.finish()

    for what, prefix, text, where in (
            ('console.error', 'error: ', 'selftest: console.error', b.console),
            ('console.warn', 'warning: ', 'selftest: console.warn', b.console),
            ('an uncaught exception', 'pageerror: ', 'selftest: uncaught', b.console),
            ('an alert', 'alert: ', 'selftest: alert', b.dialogs),
            ('a confirm', 'confirm: ', 'selftest: confirm', b.dialogs)):
        check(any(x.startswith(prefix) and text in x for x in where), f'the checker reports {what}',
              ' | '.join(where) or 'nothing')
    for url in ('http://example.invalid/x.png', 'data:image/gif;base64,'):
        check(any(x.startswith(url) for x in b.requests), f'the checker reports a request for {url}',
              ' '.join(b.requests) or 'nothing')
    check(not any(x.split('#')[0] == b.page_url for x in b.requests), 'the page itself is not a foreign request',
          ' '.join(b.requests))


# ---------------------------------------------------------------------------

def parse_args(argv):
    if argv[:1] == ['selftest']:
        if len(argv) != 2:
            usage()
        return 'selftest', None, argv[1], [], False
    if len(argv) < 3 or argv[0] not in MODES:
        usage()
    mode, html_path, out_dir, rest = argv[0], argv[1], argv[2], argv[3:]
    expects, require_lines = [], False
    i = 0
    while i < len(rest):
        if rest[i] == '--expect' and i + 1 < len(rest):
            expects.append(rest[i + 1])
            i += 1
        elif rest[i] == '--what' and i + 1 < len(rest):
            WHATS.append(rest[i + 1])
            i += 1
        elif rest[i] == '--require-lines':
            require_lines = True
        else:
            print(f"unknown argument '{rest[i]}'", file=sys.stderr)
            sys.exit(2)
        i += 1
    return mode, html_path, out_dir, expects, require_lines


def usage():
    print(USAGE, file=sys.stderr)
    sys.exit(2)


def main():
    mode, html_path, out_dir, expects, require_lines = parse_args(sys.argv[1:])
    try:
        b = Browser()
    except Exception as e:
        check(False, 'the browser started', f'{type(e).__name__}: {str(e).strip()}')
        print(f'{passed} passed, {failed} failed')
        return 1
    try:
        if mode == 'selftest':
            run_selftest(b, out_dir)
        else:
            try:
                run_report(b, mode, html_path, out_dir, expects, require_lines)
            except Exception:
                check(False, 'the checks ran to the end', traceback.format_exc().rstrip())
            b.finish()
            check(not b.console, 'no console errors or warnings', ' | '.join(b.console))
            check(not b.requests, 'no network request attempted', ' '.join(b.requests))
            check(not b.dialogs, 'no dialog opened', ' | '.join(b.dialogs))
    except Exception:
        check(False, 'the checks ran to the end', traceback.format_exc().rstrip())
    finally:
        b.quit()
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
