// check_report.mjs - open a mapprof report.html in the system Chromium and
// check it the way a developer would use it.
//
//   node check_report.mjs MODE REPORT.html OUTDIR [--expect KIND:FILE:LINE:VAR]... [--require-lines]
//
// MODE is one of
//   sample  the findings in the page's data appear in the table with their
//           file:line and variable; clicking one shows its snippet with the
//           directive line highlighted; sorting and the kind filter work; the
//           timeline highlights the selected finding
//   xss     a report full of hostile strings: they show as text, nothing runs
//   hostile a real recording of a program whose path and arguments are hostile
//   big     10 000 findings over 100 000 events: loads and reacts quickly
// In every mode: no console error, no page error, no dialog, and no request
// other than the page itself.  A screenshot goes to OUTDIR/report-MODE.png.
// Prints one line per check and ends with 'N passed, N failed'.

import { chromium } from 'playwright-core';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';

const [mode, htmlPath, outDir, ...rest] = process.argv.slice(2);
if (!['sample', 'xss', 'big', 'hostile'].includes(mode) || !htmlPath || !outDir) {
  console.error('usage: node check_report.mjs sample|xss|big|hostile REPORT.html OUTDIR [--expect KIND:FILE:LINE:VAR]... [--require-lines]');
  process.exit(2);
}
const expects = [];
let requireLines = false;
for (let i = 0; i < rest.length; i++) {
  if (rest[i] === '--expect') expects.push(rest[++i]);
  else if (rest[i] === '--require-lines') requireLines = true;
  else { console.error(`unknown argument '${rest[i]}'`); process.exit(2); }
}

let passed = 0, failed = 0;
function check(cond, what, detail) {
  if (cond) { passed++; console.log(`ok   ${what}`); }
  else { failed++; console.log(`FAIL ${what}${detail !== undefined ? ': ' + detail : ''}`); }
}

const pageUrl = pathToFileURL(path.resolve(htmlPath)).href;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
const page = await context.newPage();
const consoleErrors = [], requests = [], dialogs = [];
page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(`${m.type()}: ${m.text()}`); });
page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
page.on('dialog', (d) => { dialogs.push(`${d.type()}: ${d.message()}`); d.dismiss().catch(() => {}); });
page.on('request', (r) => {
  const u = r.url().split('#')[0];
  if (u !== pageUrl) requests.push(r.url());
});

try {
  const t0 = Date.now();
  await page.goto(pageUrl, { waitUntil: 'load' });
  await page.waitForSelector('html[data-ready="true"]', { timeout: 20000 });
  const loadMs = Date.now() - t0;
  console.log(`     page ready in ${loadMs} ms`);
  const data = await page.evaluate(() => JSON.parse(document.getElementById('mapprof-data').textContent));
  /* report.json ids are integers; the page shows and keys them as text. */
  const findings = (Array.isArray(data.findings) ? data.findings : [])
    .map((f, i) => Object.assign({}, f, { id: f.id === undefined ? 'F' + (i + 1) : String(f.id) }));

  if (mode === 'sample') await sampleChecks(data, findings);
  if (mode === 'xss') await xssChecks(data, findings);
  if (mode === 'big') await bigChecks(data, findings, loadMs);
  if (mode === 'hostile') await hostileChecks(data, findings);

  fs.mkdirSync(outDir, { recursive: true });
  const shot = path.join(outDir, `report-${mode}.png`);
  await page.screenshot({ path: shot, fullPage: mode !== 'big' });
  console.log(`     screenshot: ${shot}`);
} catch (e) {
  check(false, 'the checks ran to the end', e && e.stack ? e.stack : String(e));
}

check(consoleErrors.length === 0, 'no console errors or warnings', consoleErrors.join(' | '));
check(requests.length === 0, 'no network request attempted', requests.join(' '));
check(dialogs.length === 0, 'no dialog opened', dialogs.join(' | '));
await browser.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

// ---------------------------------------------------------------------------

function locText(l) {
  if (!l) return 'unknown location';
  if (l.file) return l.file + (l.line > 0 ? ':' + l.line : '');
  return null;
}

async function rowIds() {
  return page.$$eval('#findings-body tr', (trs) => trs.map((t) => t.dataset.id));
}

async function rowText(id, cls) {
  return page.$eval(`#findings-body tr[data-id="${cssEscape(id)}"] td.${cls}`, (td) => td.textContent);
}

function cssEscape(s) { return String(s).replace(/["\\]/g, '\\$&'); }

// The order the page should show for a sort key and direction (-1 = descending).
function expectedOrder(list, key, dir) {
  const label = { duplicate_transfer: 'Duplicate transfer', round_trip: 'Round trip', repeated_alloc: 'Repeated allocation',
    unused_alloc: 'Unused allocation', unused_transfer: 'Unused transfer' };
  const val = (f) => key === 'bytes' ? f.bytes || 0 : key === 'occurrences' ? f.occurrences || 0 : f.savings_ns || 0;
  return list.map((f, i) => ({ f, i })).sort((a, b) => {
    let d = key === 'kind' ? (label[a.f.kind] || a.f.kind).localeCompare(label[b.f.kind] || b.f.kind) : val(a.f) - val(b.f);
    d *= dir;
    if (!d && key === 'kind') d = (b.f.savings_ns || 0) - (a.f.savings_ns || 0);
    return d || a.i - b.i;
  }).map((x) => x.f.id);
}

async function clickSort(key) {
  await page.click(`th button.sort[data-sort="${key}"]`);
  return page.$eval(`th button.sort[data-sort="${key}"]`, (b) => b.parentNode.getAttribute('aria-sort'));
}

async function selectFinding(id) {
  id = String(id);  /* report.json ids are integers; the page shows them as text */
  await page.click(`#findings-body tr[data-id="${cssEscape(id)}"] td.c-kind`);
  await page.waitForFunction((want) => {
    const d = document.querySelector('#detail-body .d-id');
    return d && d.textContent === want;
  }, id, { timeout: 5000 });
}

async function sampleChecks(data, findings) {
  check(findings.length > 0, 'the report has findings', findings.length);
  const shown = findings.slice(0, 50);
  const ids = await rowIds();
  check(ids.length === shown.length, `the table shows ${shown.length} findings`, ids.length);

  // Every finding: directive file:line and variable, as in the data.
  for (const f of shown) {
    const l = (f.locations || [])[0];
    const want = locText(l);
    const loc = await rowText(f.id, 'c-loc');
    const v = await rowText(f.id, 'c-var');
    if (want) check(loc.includes(want), `${f.id} shows ${want}`, loc);
    if (requireLines) check(!!(l && l.file && l.line > 0), `${f.id} names a file:line`, JSON.stringify(l));
    const vname = f.variable && f.variable.name;
    if (vname) check(v === vname, `${f.id} shows variable ${vname}`, v);
    if (requireLines) check(!!vname, `${f.id} names its variable`);
  }
  for (const e of expects) {
    const [kind, file, line, ...vparts] = e.split(':');
    const vname = vparts.join(':');
    const f = findings.find((x) => x.kind === kind && (x.locations || []).some((l) => l.file === file && String(l.line) === line) &&
      (!vname || (x.variable && x.variable.name === vname)));
    check(!!f, `a ${kind} finding at ${file}:${line} on ${vname || 'any variable'}`);
    if (f) {
      const loc = await rowText(f.id, 'c-loc');
      check(loc.includes(`${file}:${line}`), `its row reads ${file}:${line}`, loc);
    }
  }

  // Clicking a finding shows its source with the directive line highlighted.
  for (const f of shown.slice(0, 6)) {
    await selectFinding(f.id);
    const sel = await page.$$eval('#findings-body tr.selected', (t) => t.map((x) => x.dataset.id));
    check(sel.length === 1 && sel[0] === f.id, `${f.id}: its row is selected`, sel.join(','));
    const l = (f.locations || [])[0];
    if (!l) continue;
    const head = await page.$eval('#detail-body .d-loc', (e) => e.textContent);
    if (locText(l)) check(head === locText(l), `${f.id}: detail names ${locText(l)}`, head);
    if (l.snippet && Array.isArray(l.snippet.lines) && l.snippet.lines.length && l.line > 0) {
      const hl = await page.$eval('#detail-body .loc', (loc) => [...loc.querySelectorAll('.code .ln-row.hl')]
        .map((r) => ({ line: r.dataset.line, text: r.querySelector('.src').textContent })));
      const wantText = l.snippet.lines[l.line - l.snippet.first_line];
      check(hl.length === 1 && hl[0].line === String(l.line), `${f.id}: snippet highlights line ${l.line}`, JSON.stringify(hl));
      if (hl.length === 1 && wantText !== undefined) check(hl[0].text === (wantText || ' '), `${f.id}: highlighted line is the directive`, hl[0].text);
    }
    const detail = await page.$eval('#detail-body', (e) => e.textContent);
    if (f.variable && f.variable.name) check(detail.includes(f.variable.name), `${f.id}: detail names the variable`);
    const occRows = await page.$$eval('#detail-body table.occ tbody tr', (r) => r.length);
    check(occRows === Math.min(200, (f.events || []).length), `${f.id}: lists its occurrences`, occRows);
    if (f.advice) check(detail.includes(f.advice), `${f.id}: shows its advice`);
    if (data.timeline && data.timeline.devices && data.timeline.devices.length && (f.events || []).length) {
      const marked = await page.$$eval('.tl-label.marked', (e) => e.length);
      check(marked > 0, `${f.id}: timeline highlights its occurrences`, marked);
    }
  }

  // Sorting.
  for (const [key, first] of [['bytes', 'descending'], ['occurrences', 'descending'], ['kind', 'ascending'], ['savings', 'descending']]) {
    let dir = await clickSort(key);
    if (dir !== first) dir = await clickSort(key);   // savings starts selected: first click flips it
    check(dir === first, `sort by ${key}: header says ${first}`, dir);
    let want = expectedOrder(findings, key, first === 'descending' ? -1 : 1).slice(0, 50);
    check(JSON.stringify(await rowIds()) === JSON.stringify(want), `sort by ${key} ${first}`, (await rowIds()).join(','));
    dir = await clickSort(key);
    want = expectedOrder(findings, key, dir === 'descending' ? -1 : 1).slice(0, 50);
    check(dir !== first && JSON.stringify(await rowIds()) === JSON.stringify(want), `sort by ${key} ${dir}`, (await rowIds()).join(','));
  }

  // Kind filter, from the select and from the chips.
  const kinds = [...new Set(findings.map((f) => f.kind))];
  for (const k of kinds) {
    await page.selectOption('#filter-kind', k);
    const ids = await rowIds();
    const want = findings.filter((f) => f.kind === k).map((f) => f.id);
    check(ids.length === Math.min(50, want.length) && ids.every((id) => want.includes(id)), `filter by kind ${k}`, ids.join(','));
  }
  await page.selectOption('#filter-kind', '');
  check((await rowIds()).length === shown.length, 'filter back to all kinds');
  if (kinds.length) {
    await page.click(`#kind-chips button[data-kind="${kinds[0]}"]`);
    const ids = await rowIds();
    check(ids.length > 0 && ids.every((id) => findings.find((f) => f.id === id).kind === kinds[0]), `chip filters to ${kinds[0]}`);
    await page.click(`#kind-chips button[data-kind="${kinds[0]}"]`);
    check((await rowIds()).length === shown.length, 'chip clicked again clears the filter');
  }

  // Header.
  const cmd = await page.$eval('#run-command', (e) => e.textContent);
  const argv = (data.run && data.run.command) || [];
  if (argv.length) check(cmd.includes(argv[argv.length - 1]), 'the header shows the command line', cmd);
  const kpis = await page.$$eval('.kpi .label', (e) => e.map((x) => x.textContent));
  check(kpis.includes('Estimated savings') && kpis.includes('Predicted speedup'), 'the header shows savings and speedup', kpis.join(','));

  // Leave the table sorted by savings, the top finding selected, for the screenshot.
  if ((await clickSort('savings')) !== 'descending') await clickSort('savings');
  if (findings.length) {
    const top = expectedOrder(findings, 'savings', -1)[0];
    await selectFinding(top);
    await page.evaluate(() => window.scrollTo(0, 0));
  }
}

async function xssChecks(data, findings) {
  const flag = await page.evaluate(() => window.__xss);
  check(flag === undefined, 'no injected script ran (window.__xss unset)', flag);
  const injected = await page.$$eval('img, svg, iframe, object, embed, b, i', (e) => e.map((x) => x.outerHTML));
  check(injected.length === 0, 'no element was created from the data', injected.join(' '));
  const scripts = await page.$$eval('script', (s) => s.length);
  check(scripts === 2, 'the page has only its own two scripts', scripts);

  const cmd = await page.$eval('#run-command', (e) => e.textContent);
  check(cmd.includes('</script><img src=x onerror='), 'hostile command line shows as text', cmd);
  const argv = data.run.command;
  const top = await page.$eval('#top-program', (e) => e.textContent);
  check(top === argv.join(' '), 'top bar shows the command verbatim', top);

  const f = findings[0];
  const v = await rowText(f.id, 'c-var');
  check(v === f.variable.name, 'hostile variable name shows as text', v);
  const loc = await rowText(f.id, 'c-loc');
  check(loc.includes(f.locations[0].file), 'hostile file name shows as text', loc);
  await selectFinding(f.id);
  const code = await page.$$eval('#detail-body .code .src', (e) => e.map((x) => x.textContent));
  check(code.length === f.locations[0].snippet.lines.length && code[1] === f.locations[0].snippet.lines[1],
    'hostile source lines show as text', JSON.stringify(code));
  const detail = await page.$eval('#detail-body', (e) => e.textContent);
  check(detail.includes(f.advice), 'hostile advice shows as text');
  const devTitle = await page.$eval('.tl-dev-title', (e) => e.textContent).catch(() => '');
  check(devTitle.includes('<img'), 'hostile device type shows as text', devTitle);

  // The finding with a hostile id and an unknown, hostile kind.
  const g = findings[1];
  await selectFinding(g.id);
  check(await page.evaluate(() => decodeURIComponent(location.hash.slice(1))) === g.id, 'hostile id round-trips through the URL fragment');
  const badge = await page.$eval('#detail-body .badge', (e) => e.textContent);
  check(badge === g.kind, 'unknown kind shows as text', badge);
  // Hover the timeline: the tooltip is built from data too.
  const cv = await page.$('#timeline canvas');
  if (cv) {
    const box = await cv.boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + 12);
  }
  const flag2 = await page.evaluate(() => window.__xss);
  check(flag2 === undefined, 'still nothing ran after interacting', flag2);
}

async function hostileChecks(data, findings) {
  const argv = (data.run && data.run.command) || [];
  check(argv.some((a) => a.includes('<script>')) && argv.some((a) => a.includes('"')),
    'the recorded command line holds <script> and a double quote', JSON.stringify(argv));
  const cmd = await page.$eval('#run-command', (e) => e.textContent);
  check(argv.every((a) => cmd.includes(a)), 'every argument shows verbatim as text', cmd);
  const injected = await page.$$eval('img, svg, iframe, object, embed', (e) => e.map((x) => x.outerHTML));
  check(injected.length === 0, 'no element was created from the program\'s strings', injected.join(' '));
  if (findings.length) await selectFinding(findings[0].id);
  const flag = await page.evaluate(() => window.__xss);
  check(flag === undefined, 'nothing from the program\'s path or arguments ran', flag);
}

async function bigChecks(data, findings, loadMs) {
  check(findings.length === 10000, 'the report has 10 000 findings', findings.length);
  const events = (data.timeline && data.timeline.devices || []).reduce((n, d) =>
    n + Object.values(d.lanes || {}).reduce((m, l) => m + (l.count || 0), 0), 0);
  check(events >= 100000, 'the timeline covers 100 000+ events', events);
  check(loadMs < 8000, 'the page is ready within 8 s', `${loadMs} ms`);
  const nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
  check(nodes < 6000, 'the DOM stays small (rows are paginated, the timeline is drawn)', nodes);
  check((await rowIds()).length === 50, 'one page of 50 rows');
  const info = await page.$eval('#page-info', (e) => e.textContent);
  check(info === '1\u201350 of 10,000', 'pager says 1-50 of 10,000', info);

  async function timed(what, fn, limitMs) {
    const t = Date.now();
    await fn();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
    const ms = Date.now() - t;
    check(ms < limitMs, `${what} within ${limitMs} ms`, `${ms} ms`);
  }
  await timed('sort by bytes', () => clickSort('bytes'), 1500);
  const want = expectedOrder(findings, 'bytes', -1).slice(0, 50);
  check(JSON.stringify(await rowIds()) === JSON.stringify(want), 'sorted by bytes');
  await timed('filter by kind', () => page.selectOption('#filter-kind', 'round_trip'), 1500);
  const cnt = await page.$eval('#findings-count', (e) => e.textContent);
  check(cnt === '2,000 of 10,000', 'kind filter counts 2,000', cnt);
  await timed('next page', () => page.click('#page-next'), 1500);
  check((await page.$eval('#page-info', (e) => e.textContent)).startsWith('51'), 'second page');
  const id = (await rowIds())[3];
  await timed('open a finding', () => selectFinding(id), 1500);
  await page.fill('#filter-text', 'kernel_007.c');
  await page.waitForFunction(() => document.getElementById('findings-count').textContent.includes(' of '));
  await page.waitForTimeout(300);
  const ids = await rowIds();
  check(ids.length > 0 && ids.every((x) => findings.find((f) => f.id === x).locations[0].file.includes('kernel_007.c')), 'search by file name', ids.length);
  await page.fill('#filter-text', '');
  await page.selectOption('#filter-kind', '');

  // Timeline: zoom by dragging, hover for a tooltip, zoom to the finding.
  const cv = await page.$('#timeline canvas');
  check(!!cv, 'the timeline is drawn');
  if (cv) {
    await cv.scrollIntoViewIfNeeded();
    await page.waitForTimeout(600);   // let a smooth scroll finish before taking coordinates
    let box = await cv.boundingBox();
    await timed('zoom by dragging', async () => {
      await page.mouse.move(box.x + box.width * 0.3, box.y + 10);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.35, box.y + 10, { steps: 5 });
      await page.mouse.up();
    }, 1500);
    check(!(await page.$eval('#tl-reset', (b) => b.disabled)), 'zoomed in (reset enabled)');
    box = await cv.boundingBox();
    await page.mouse.move(box.x + box.width * 0.5, box.y + 30);
    await page.mouse.move(box.x + box.width * 0.5 + 2, box.y + 31);
    check(await page.$eval('#tl-tip', (t) => !t.hidden && t.textContent.length > 0), 'hovering shows a tooltip');
    await timed('zoom to the finding', () => page.click('#tl-zoom-finding'), 1500);
  }
}
