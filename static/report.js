/*
 * mapprof report.html: renders the data embedded in #mapprof-data.
 *
 * Rules this file keeps:
 * - every string from the data reaches the page through textContent (or a
 *   canvas fillText), never through innerHTML or an attribute parsed as markup;
 * - no network: nothing is fetched, no element gets a URL from the data;
 * - it must not contain the character sequences that would end its inline
 *   script element early (html.c refuses to inline it otherwise);
 * - it stays fast with 10 000 findings (one page of rows is in the DOM) and a
 *   100 000-event timeline (the data comes binned; canvases draw the bins).
 */
(function () {
  'use strict';

  var KINDS = {
    duplicate_transfer: { label: 'Duplicate transfer',
      about: 'A device received content it already had.' },
    round_trip: { label: 'Round trip',
      about: 'Data went to the other side and came back unchanged.' },
    repeated_alloc: { label: 'Repeated allocation',
      about: 'The same host data was allocated and freed on the device again and again.' },
    unused_alloc: { label: 'Unused allocation',
      about: 'Device memory was allocated but no kernel ran while it existed.' },
    unused_transfer: { label: 'Unused transfer',
      about: 'Data was sent to a device but no kernel could read it.' }
  };
  var KIND_ORDER = ['duplicate_transfer', 'round_trip', 'repeated_alloc', 'unused_alloc', 'unused_transfer'];
  var LANES = {
    kernels: { label: 'Kernels', color: '--l-kernels' },
    to_device: { label: 'Host \u2192 device', color: '--l-to' },
    from_device: { label: 'Device \u2192 host', color: '--l-from' },
    alloc_ops: { label: 'Alloc / free', color: '--l-alloc' },
    mapped: { label: 'Mapped memory', color: '--l-mapped' }
  };
  var LANE_ORDER = ['kernels', 'to_device', 'from_device', 'alloc_ops', 'mapped'];
  var ORIGINS = {
    'ompt-ident': 'source record from clang (-g)',
    dwarf: 'DWARF line table',
    symbol: 'ELF symbol only',
    none: 'no symbol information'
  };
  var PAGE_SIZE = 50;
  var OCC_LIMIT = 200;

  /* ---------- small helpers ---------- */

  function $(id) { return document.getElementById(id); }
  function h(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined || c === false) continue;
      parent.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
    }
    return parent;
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }
  function isObj(x) { return x !== null && typeof x === 'object' && !Array.isArray(x); }
  function obj(x) { return isObj(x) ? x : {}; }
  function arr(x) { return Array.isArray(x) ? x : []; }
  function num(x) { return typeof x === 'number' && isFinite(x) ? x : 0; }
  function has(x) { return typeof x === 'number' && isFinite(x); }
  function str(x) { return typeof x === 'string' ? x : (typeof x === 'number' ? String(x) : ''); }

  function fmtInt(n) { return Math.round(num(n)).toLocaleString('en-US'); }
  function fmtBytes(b) {
    b = num(b);
    if (b < 1024) return fmtInt(b) + ' B';
    var u = ['KiB', 'MiB', 'GiB', 'TiB'], i = -1;
    do { b /= 1024; i++; } while (b >= 1024 && i < u.length - 1);
    return (b >= 100 ? b.toFixed(0) : b >= 10 ? b.toFixed(1) : b.toFixed(2)) + ' ' + u[i];
  }
  function fmtDur(ns) {
    ns = num(ns);
    var a = Math.abs(ns);
    if (a < 1e3) return Math.round(ns) + ' ns';
    if (a < 1e6) return trim(ns / 1e3) + ' \u00b5s';
    if (a < 1e9) return trim(ns / 1e6) + ' ms';
    return trim(ns / 1e9) + ' s';
  }
  function trim(v) {
    var a = Math.abs(v);
    return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : v.toFixed(2);
  }
  /* A point in time, since run start, at a resolution that suits 'span'. */
  function fmtAt(ns, span) {
    ns = num(ns);
    span = span || Math.abs(ns) || 1;
    if (span >= 1e10) return (ns / 1e9).toFixed(1) + ' s';
    if (span >= 1e9) return (ns / 1e9).toFixed(2) + ' s';
    if (span >= 1e7) return (ns / 1e6).toFixed(1) + ' ms';
    if (span >= 1e6) return (ns / 1e6).toFixed(2) + ' ms';
    if (span >= 1e4) return (ns / 1e6).toFixed(3) + ' ms';
    return (ns / 1e3).toFixed(2) + ' \u00b5s';
  }
  function fmtPct(part, whole) {
    if (!whole) return '';
    var p = 100 * part / whole;
    return (p > 0 && p < 0.1 ? '<0.1' : p.toFixed(p < 10 ? 1 : 0)) + '%';
  }
  function plural(n, one, many) { return fmtInt(n) + ' ' + (Math.round(n) === 1 ? one : (many || one + 's')); }
  function basename(p) { p = str(p); var i = p.lastIndexOf('/'); return i >= 0 ? p.slice(i + 1) : p; }
  function shellQuote(s) {
    s = str(s);
    if (s !== '' && /^[A-Za-z0-9_@%+=:,.\/-]+$/.test(s)) return s;
    return "'" + s.replace(/'/g, "'\\''") + "'";
  }
  /* A path that may wrap only after a '/' (as text nodes and <wbr> elements). */
  function pathNodes(parent, text) {
    str(text).split('/').forEach(function (part, i, all) {
      parent.appendChild(document.createTextNode(part + (i < all.length - 1 ? '/' : '')));
      if (i < all.length - 1) parent.appendChild(document.createElement('wbr'));
    });
    return parent;
  }
  function kindInfo(k) { return KINDS[k] || { label: str(k) || 'Unknown', about: '' }; }
  function kindClass(k) { return KINDS[k] ? 'k-' + k : ''; }
  function badge(k) { return h('span', 'badge ' + kindClass(k), kindInfo(k).label); }
  function devName(d) { return has(d) ? 'device ' + d : 'a device'; }
  function cssVar(name) { return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888'; }

  /* ---------- data ---------- */

  var D;
  try {
    D = JSON.parse($('mapprof-data').textContent);
  } catch (e) {
    D = null;
  }
  if (!isObj(D)) {
    add(clear($('app')), h('p', 'notice', 'This report holds no readable data.'));
    return;
  }
  var run = obj(D.run), summary = obj(D.summary);
  var hostDevice = has(run.host_device) ? run.host_device : null;
  var runNs = num(run.duration_ns) || num(summary.duration_ns);

  function locText(l) {
    l = obj(l);
    if (l.file) return str(l.file) + (has(l.line) && l.line > 0 ? ':' + l.line : '');
    if (l['function']) return str(l['function']) + '()';
    if (l.module) return basename(l.module) + (l.offset ? '+' + str(l.offset) : '');
    if (l.codeptr) return str(l.codeptr);
    return 'unknown location';
  }
  function varText(v) { v = obj(v); return str(v.name); }

  var records = arr(D.findings).filter(isObj).map(function (f, i) {
    var locs = arr(f.locations).filter(isObj), v = obj(f.variable);
    var r = {
      f: f, idx: i,
      id: str(f.id) || 'F' + (i + 1),
      kind: str(f.kind),
      locs: locs,
      loc: locs.length ? locText(locs[0]) : 'unknown location',
      fn: locs.length ? str(locs[0]['function']) : '',
      variable: varText(v),
      occ: num(f.occurrences) || arr(f.events).length,
      bytes: num(f.bytes),
      savings: num(f.savings_ns),
      events: arr(f.events).filter(isObj)
    };
    r.search = [r.id, r.kind, kindInfo(r.kind).label, r.variable].concat(locs.map(function (l) {
      return [locText(l), str(l['function']), str(l.module)].join(' ');
    })).join(' ').toLowerCase();
    return r;
  });
  var byId = new Map();
  records.forEach(function (r) { byId.set(r.id, r); });
  var maxSavings = records.reduce(function (m, r) { return Math.max(m, r.savings); }, 0);

  /* ---------- header ---------- */

  function renderHeader() {
    var cmd = arr(run.command).map(str);
    var prog = cmd.length ? basename(cmd[0]) : 'unknown program';
    document.title = 'mapprof: ' + prog;
    $('run-program').textContent = prog;
    $('top-program').textContent = cmd.join(' ');
    var cl = clear($('run-command'));
    add(cl, h('span', 'prompt', '$ '));
    cmd.forEach(function (a, i) {
      if (i) add(cl, ' ');
      add(cl, h('span', i ? 'arg' : 'prog', shellQuote(a)));
    });
    if (!cmd.length) add(cl, h('span', 'muted', '(command line not recorded)'));

    var meta = clear($('run-meta'));
    function item(k, v) {
      if (v === '' || v === null || v === undefined) return;
      var d = h('div');
      add(d, h('dt', null, k), h('dd', null, v));
      add(meta, d);
    }
    var st = str(run.start_time);
    item('Date', st ? st.replace('T', ' ').replace(/Z$/, ' UTC') : '');
    item('Host', str(run.host));
    item('Runtime', str(run.runtime));
    var devs = arr(run.devices).filter(isObj).map(function (d) {
      return str(d.device) + (d.type ? ' (' + str(d.type) + ')' : '');
    });
    item('Devices', devs.join(', '));
    if (has(run.exit_status)) item('Exit status', String(run.exit_status));
    item('Directory', str(run.cwd));

    var notes = [];
    if (run.status && run.status !== 'complete')
      notes.push('Recording status: ' + str(run.status) + (run.status_detail ? ' (' + str(run.status_detail) + ')' : '') + '.');
    if (num(run.events_lost) > 0)
      notes.push(plural(run.events_lost, 'event') + ' were lost while recording; totals may be low.');
    if (notes.length) {
      $('run-notice').textContent = notes.join(' ');
      $('run-notice').hidden = false;
    }
    var g = obj(D.generator);
    if (g.version) $('gen-version').textContent = str(g.version);
  }

  function renderKpis() {
    var k = clear($('kpis'));
    var savings = has(summary.savings_ns) ? summary.savings_ns
      : records.reduce(function (s, r) { return s + r.savings; }, 0);
    function card(label, value, sub, cls, frac) {
      var c = h('div', 'kpi' + (cls ? ' ' + cls : ''));
      add(c, h('div', 'label', label), h('div', 'value', value));
      if (sub) add(c, h('div', 'sub', sub));
      if (frac !== undefined) {
        var b = h('div', 'bar'), s = h('span');
        s.style.width = Math.max(0, Math.min(100, 100 * frac)).toFixed(1) + '%';
        add(c, add(b, s));
      }
      add(k, c);
    }
    card('Run time', runNs ? fmtDur(runNs) : '\u2014',
      has(run.exit_status) ? 'exit status ' + run.exit_status : '');
    card('Time in transfers', fmtDur(summary.transfer_ns),
      runNs ? fmtPct(num(summary.transfer_ns), runNs) + ' of run time' : '', '',
      runNs ? num(summary.transfer_ns) / runNs : undefined);
    card('Time in allocations', fmtDur(summary.alloc_ns),
      runNs ? fmtPct(num(summary.alloc_ns), runNs) + ' of run time' : '', '',
      runNs ? num(summary.alloc_ns) / runNs : undefined);
    card('Estimated savings', fmtDur(savings),
      (runNs ? fmtPct(savings, runNs) + ' of run time \u00b7 ' : '') + plural(records.length, 'finding'),
      'hero', runNs ? savings / runNs : undefined);
    var sp = num(summary.predicted_speedup);
    if (!sp && !savings) sp = 1;
    if (!sp && runNs && savings < runNs) sp = runNs / (runNs - savings);
    card('Predicted speedup', sp ? sp.toFixed(sp < 10 ? 2 : 1) + '\u00d7' : '\u2014',
      'if every finding is fixed', 'hero');
  }

  /* ---------- findings table ---------- */

  var state = { sort: 'savings', dir: -1, kind: '', text: '', page: 0, selected: null, view: records.slice() };

  function kindCounts() {
    var c = {};
    records.forEach(function (r) {
      var e = c[r.kind] || (c[r.kind] = { n: 0, savings: 0 });
      e.n++; e.savings += r.savings;
    });
    return c;
  }

  function renderKindControls() {
    var counts = kindCounts(), kinds = obj(summary.kinds);
    var chips = clear($('kind-chips')), sel = clear($('filter-kind'));
    var all = h('option', null, 'All kinds (' + fmtInt(records.length) + ')');
    all.value = '';
    add(sel, all);
    var order = KIND_ORDER.slice();
    Object.keys(counts).forEach(function (k) { if (order.indexOf(k) < 0) order.push(k); });
    order.forEach(function (k) {
      var c = counts[k] || { n: 0, savings: 0 }, s = obj(kinds[k]);
      var o = h('option', null, kindInfo(k).label + ' (' + fmtInt(c.n) + ')');
      o.value = k;
      add(sel, o);
      var chip = h('button', 'chip' + (c.n ? '' : ' zero'));
      chip.type = 'button';
      chip.dataset.kind = k;
      chip.title = kindInfo(k).about;
      add(chip, h('span', 'dot ' + kindClass(k)), h('span', null, kindInfo(k).label),
        h('span', 'n', fmtInt(c.n)),
        c.n ? h('span', 's', 'saves ' + fmtDur(has(s.savings_ns) ? s.savings_ns : c.savings)) : null);
      chip.addEventListener('click', function () { setKind(state.kind === k ? '' : k); });
      add(chips, chip);
    });
    sel.addEventListener('change', function () { setKind(sel.value); });
  }

  function setKind(k) {
    state.kind = k;
    $('filter-kind').value = k;
    Array.prototype.forEach.call($('kind-chips').children, function (c) {
      c.classList.toggle('active', c.dataset.kind === k);
      c.setAttribute('aria-pressed', c.dataset.kind === k ? 'true' : 'false');
    });
    state.page = 0;
    refreshView();
  }

  function compare(a, b) {
    var d = 0;
    switch (state.sort) {
      case 'kind': d = kindInfo(a.kind).label.localeCompare(kindInfo(b.kind).label); break;
      case 'bytes': d = a.bytes - b.bytes; break;
      case 'occurrences': d = a.occ - b.occ; break;
      default: d = a.savings - b.savings;
    }
    d *= state.dir;
    if (!d && state.sort === 'kind') d = b.savings - a.savings;
    return d || a.idx - b.idx;
  }

  function refreshView() {
    var t = state.text, k = state.kind;
    state.view = records.filter(function (r) {
      return (!k || r.kind === k) && (!t || r.search.indexOf(t) >= 0);
    });
    state.view.sort(compare);
    var pages = Math.max(1, Math.ceil(state.view.length / PAGE_SIZE));
    if (state.page >= pages) state.page = pages - 1;
    renderTable();
  }

  function renderTable() {
    var body = clear($('findings-body'));
    var v = state.view, start = state.page * PAGE_SIZE, end = Math.min(v.length, start + PAGE_SIZE);
    var frag = document.createDocumentFragment();
    for (var i = start; i < end; i++) frag.appendChild(row(v[i]));
    body.appendChild(frag);

    var total = records.length;
    $('findings-count').textContent = v.length === total ? fmtInt(total) : fmtInt(v.length) + ' of ' + fmtInt(total);
    var empty = $('findings-empty');
    empty.hidden = v.length > 0;
    if (!v.length) empty.textContent = total ? 'No finding matches the filter.'
      : 'No findings: mapprof saw no wasteful data mapping in this run.';
    $('page-info').textContent = v.length ? (start + 1) + '\u2013' + end + ' of ' + fmtInt(v.length) : '';
    $('page-prev').disabled = state.page === 0;
    $('page-next').disabled = end >= v.length;
    $('pager').hidden = v.length <= PAGE_SIZE;
    Array.prototype.forEach.call(document.querySelectorAll('th button.sort'), function (b) {
      var th = b.parentNode;
      if (b.dataset.sort === state.sort) th.setAttribute('aria-sort', state.dir < 0 ? 'descending' : 'ascending');
      else th.removeAttribute('aria-sort');
    });
  }

  function row(r) {
    var tr = h('tr', r === state.selected ? 'selected' : '');
    tr.dataset.id = r.id;
    tr.tabIndex = 0;
    var loc = h('td', 'c-loc');
    add(loc, pathNodes(h('span', 'where'), r.loc));
    if (r.locs.length > 1) add(loc, ' ', h('span', 'more', '+' + (r.locs.length - 1) + ' more'));
    if (r.fn) add(loc, h('span', 'fn', 'in ' + r.fn + '()'));
    var sav = h('td', 'c-sav');
    var bar = h('div', 'savbar'), fill = h('span');
    fill.style.width = (maxSavings ? 100 * r.savings / maxSavings : 0).toFixed(1) + '%';
    add(sav, h('div', 'v', fmtDur(r.savings)), add(bar, fill));
    add(tr, h('td', 'c-id', r.id), add(h('td', 'c-kind'), badge(r.kind)), loc,
      h('td', 'c-var', r.variable || '\u2014'),
      h('td', 'c-num', fmtInt(r.occ)), h('td', 'c-num', fmtBytes(r.bytes)), sav);
    return tr;
  }

  function initTable() {
    $('findings-body').addEventListener('click', function (e) {
      var tr = e.target.closest('tr');
      if (tr && tr.dataset.id) select(byId.get(tr.dataset.id), false);
    });
    $('findings-body').addEventListener('keydown', function (e) {
      var i = state.view.indexOf(state.selected);
      if (e.key === 'Enter') {
        var tr = e.target.closest('tr');
        if (tr) select(byId.get(tr.dataset.id), false);
      } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        var j = Math.max(0, Math.min(state.view.length - 1, i + (e.key === 'ArrowDown' ? 1 : -1)));
        if (state.view[j]) select(state.view[j], true, true);
      }
    });
    Array.prototype.forEach.call(document.querySelectorAll('th button.sort'), function (b) {
      b.addEventListener('click', function () {
        var k = b.dataset.sort;
        if (state.sort === k) state.dir = -state.dir;
        else { state.sort = k; state.dir = k === 'kind' ? 1 : -1; }
        state.page = 0;
        refreshView();
      });
    });
    $('page-prev').addEventListener('click', function () { state.page--; renderTable(); });
    $('page-next').addEventListener('click', function () { state.page++; renderTable(); });
    var timer = 0;
    $('filter-text').addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        state.text = $('filter-text').value.trim().toLowerCase();
        state.page = 0;
        refreshView();
      }, 120);
    });
  }

  /* Select a finding; 'reveal' moves the table to its page, 'focus' focuses its row. */
  function select(r, reveal, focus) {
    if (!r) return;
    state.selected = r;
    if (reveal) {
      var i = state.view.indexOf(r);
      if (i >= 0 && Math.floor(i / PAGE_SIZE) !== state.page) {
        state.page = Math.floor(i / PAGE_SIZE);
        renderTable();
      }
    }
    Array.prototype.forEach.call($('findings-body').children, function (tr) {
      var on = tr.dataset.id === r.id;
      tr.classList.toggle('selected', on);
      tr.setAttribute('aria-selected', on ? 'true' : 'false');
      if (on && focus) tr.focus();
    });
    renderDetail(r);
    timeline.setMarks(r);
    try { history.replaceState(null, '', '#' + encodeURIComponent(r.id)); } catch (e) { /* file:// quirks */ }
  }

  /* ---------- finding detail ---------- */

  function code(text) { return h('code', null, text); }

  function devicesOf(r) {
    var d = arr(r.f.devices).filter(has);
    if (!d.length) r.events.forEach(function (e) { var x = evDevice(e); if (has(x) && d.indexOf(x) < 0) d.push(x); });
    return d;
  }
  function devList(d) {
    if (!d.length) return 'the device';
    return (d.length === 1 ? 'device ' : 'devices ') + d.join(', ');
  }

  /* "What happened", in words, as DOM nodes. */
  function whatHappened(r) {
    var p = h('p', 'd-what'), v = r.variable ? code(r.variable) : 'Mapped data';
    var n = r.occ, b = fmtBytes(r.bytes), devs = devList(devicesOf(r));
    switch (r.kind) {
      case 'duplicate_transfer':
        add(p, v, ' was sent to ' + devs + ' ' + plural(n, 'more time') +
          ' with content the device already held (' + b + ' moved for nothing).');
        break;
      case 'round_trip':
        add(p, v, ' came back unchanged: ' + plural(n, 'transfer') + ' returned data to the side that ' +
          'had sent it (' + b + ')' + (r.f.flavour === 'same_host_data' ? ', into the same host memory it came from.'
            : r.f.flavour === 'identical_content' ? ', with content identical to what was sent.' : '.'));
        break;
      case 'repeated_alloc':
        add(p, v, ' was allocated and freed on ' + devs + ' ' + plural(n, 'more time') +
          ' than needed (' + b + ' in total).');
        break;
      case 'unused_alloc':
        add(p, v, ' was allocated on ' + devs + ' (' + plural(n, 'time') + ', ' + b +
          ') but no kernel ran on it while it was mapped.');
        break;
      case 'unused_transfer':
        add(p, v, ' was sent to ' + devs + ' ' + plural(n, 'time') + ' (' + b + ') but no kernel read it: ' +
          'it was overwritten first or arrived after the last kernel.');
        break;
      default:
        add(p, kindInfo(r.kind).about || 'A data mapping pattern that costs time.', ' (' + plural(n, 'occurrence') + ', ' + b + ').');
    }
    if (r.savings > 0)
      add(p, ' Fixing it saves about ', h('strong', null, fmtDur(r.savings)),
        runNs ? ' (' + fmtPct(r.savings, runNs) + ' of the run).' : '.');
    return p;
  }

  /* A generic way to fix each kind, naming the directive's line. */
  function fixHint(r) {
    var at = r.locs.length ? r.locs.map(locText).join(', ') : 'the directive';
    var v = r.variable || 'the data', p = h('p', 'advice generic');
    add(p, h('span', 'lead', 'Typical fix: '));
    switch (r.kind) {
      case 'duplicate_transfer':
        add(p, 'Keep ', code(v), ' on the device instead of sending it again at ', code(at),
          ': map it once with ', code('#pragma omp target data map(to: ' + v + ')'),
          ' around the loop (or ', code('target enter data'), ') and use ',
          code('target update to(' + v + ')'), ' only after the host changes it.');
        break;
      case 'round_trip':
        add(p, 'At ', code(at), ', the data comes back unchanged: map ', code(v),
          ' with ', code('map(to: ...)'), ' instead of ', code('map(tofrom: ...)'),
          ', or copy back only when the host needs it with ', code('target update from(' + v + ')'), '.');
        break;
      case 'repeated_alloc':
        add(p, 'Allocate ', code(v), ' once: put ', code('#pragma omp target enter data map(alloc: ' + v + ')'),
          ' before the loop that reaches ', code(at), ' and ', code('target exit data map(delete: ' + v + ')'),
          ' after it; the construct at ', code(at), ' then finds it present.');
        break;
      case 'unused_alloc':
        add(p, 'No kernel uses ', code(v), ' while it is mapped: remove it from the map clause at ', code(at), '.');
        break;
      case 'unused_transfer':
        add(p, 'The copy of ', code(v), ' made at ', code(at), ' is never read on the device: drop it from ',
          code('map(to: ...)'), ' there, or use ', code('map(alloc: ...)'), ' if the device only writes it.');
        break;
      default:
        return null;
    }
    return p;
  }

  function snippet(l) {
    var s = obj(l.snippet), lines = arr(s.lines), first = num(s.first_line) || 1;
    if (!lines.length) return null;
    var pre = h('pre', 'code'), line = num(l.line);
    lines.forEach(function (t, i) {
      var n = first + i, rowEl = h('div', 'ln-row' + (n === line ? ' hl' : ''));
      rowEl.dataset.line = String(n);
      add(rowEl, h('span', 'ln', n), h('span', 'src', str(t) || ' '));
      pre.appendChild(rowEl);
    });
    return pre;
  }

  function locationBlock(l) {
    var d = h('div', 'loc'), head = h('div', 'loc-head');
    var where = locText(l) + (l.file && has(l.column) && l.column > 0 && has(l.line) && l.line > 0 ? ':' + l.column : '');
    add(head, pathNodes(h('span', 'where'), where));
    if (l['function']) add(head, h('span', 'src', 'in ' + str(l['function']) + '()'));
    if (l.origin) add(head, h('span', 'src', 'from ' + (ORIGINS[l.origin] || str(l.origin))));
    add(d, head);
    var sn = snippet(l);
    if (sn) add(d, sn);
    else {
      var p = h('p', 'nosrc');
      if (l.file) add(p, 'Source not available in this report (the file was not readable when it was made).');
      else add(p, 'No line information' + (l.module ? ' for ' : ''), l.module ? code(basename(l.module) + (l.offset ? '+' + str(l.offset) : '')) : '',
        '. Rebuild the program with ', code('-g'), ' to see the directive\'s file and line.');
      add(d, p);
    }
    return d;
  }

  function evDevice(e) {
    switch (e.op) {
      case 'to_device': case 'alloc': return e.dest_device;
      case 'from_device': case 'delete': return e.src_device;
      default: return has(e.dest_device) && e.dest_device !== hostDevice ? e.dest_device : e.src_device;
    }
  }
  function direction(e) {
    function side(d) { return d === hostDevice ? 'host' : devName(d); }
    switch (e.op) {
      case 'to_device': return 'host \u2192 ' + devName(e.dest_device);
      case 'from_device': return devName(e.src_device) + ' \u2192 host';
      case 'alloc': return 'on ' + devName(e.dest_device);
      case 'delete': return 'on ' + devName(e.src_device);
      default: return side(e.src_device) + ' \u2192 ' + side(e.dest_device);
    }
  }
  var OPS = { to_device: 'copy to device', from_device: 'copy from device', alloc: 'allocate', 'delete': 'free' };

  function occurrences(r) {
    var sec = h('section', 'd-sec');
    add(sec, h('h3', null, 'Occurrences (' + fmtInt(r.occ) + ')'));
    if (!r.events.length) { add(sec, h('p', 'occ-note', 'The report lists no individual events for this finding.')); return sec; }
    var t = h('table', 'occ'), head = h('tr');
    ['#', 'At', 'Operation', 'Where', 'Bytes', 'Took'].forEach(function (c, i) {
      add(head, h('th', i >= 4 ? 'r' : '', c));
    });
    add(t, add(h('thead'), head));
    var body = h('tbody');
    r.events.slice(0, OCC_LIMIT).forEach(function (e, i) {
      var tr = h('tr');
      add(tr, h('td', null, i + 1), h('td', null, has(e.begin_ns) ? fmtAt(e.begin_ns, runNs) : '\u2014'),
        h('td', null, OPS[e.op] || str(e.op)), h('td', null, direction(e)),
        h('td', 'r', fmtBytes(e.bytes)),
        h('td', 'r', has(e.begin_ns) && has(e.end_ns) ? fmtDur(e.end_ns - e.begin_ns) : '\u2014'));
      body.appendChild(tr);
    });
    add(t, body);
    add(sec, t);
    if (r.events.length > OCC_LIMIT)
      add(sec, h('p', 'occ-note', 'Showing the first ' + OCC_LIMIT + ' of ' + fmtInt(r.events.length) + ' events.'));
    else if (r.occ > r.events.length)
      add(sec, h('p', 'occ-note', 'The report lists ' + fmtInt(r.events.length) + ' of the ' + fmtInt(r.occ) + ' occurrences.'));
    return sec;
  }

  function renderDetail(r) {
    $('detail-empty').hidden = true;
    var d = clear($('detail-body'));
    d.hidden = false;
    var f = r.f, v = obj(f.variable);

    var head = h('div', 'd-head'), title = h('div', 'd-title');
    add(title, h('span', 'd-id', r.id), badge(r.kind), pathNodes(h('span', 'd-loc'), r.loc));
    add(head, title, whatHappened(r));
    var stats = h('dl', 'd-stats');
    function stat(k, val) { add(stats, add(h('div'), h('dt', null, k), h('dd', null, val))); }
    stat('Est. saving', fmtDur(r.savings));
    stat('Occurrences', fmtInt(r.occ));
    stat('Bytes', fmtBytes(r.bytes));
    stat('Devices', devicesOf(r).join(', ') || '\u2014');
    add(head, stats);
    add(d, head);

    var fix = h('section', 'd-sec');
    add(fix, h('h3', null, 'How to fix'));
    if (f.advice) add(fix, h('p', 'advice', str(f.advice)));
    var hint = fixHint(r);
    if (hint) add(fix, hint);
    if (f.advice || hint) add(d, fix);

    var src = h('section', 'd-sec');
    add(src, h('h3', null, r.locs.length > 1 ? 'Source (' + r.locs.length + ' directives)' : 'Source'));
    if (!r.locs.length) add(src, h('p', 'nosrc', 'No code location was recorded for this finding.'));
    r.locs.forEach(function (l) { add(src, locationBlock(l)); });
    add(d, src);

    if (v.name || v.decl_file) {
      var vs = h('section', 'd-sec'), p = h('p', null);
      add(vs, h('h3', null, 'Variable'));
      add(p, code(str(v.name) || '(unnamed)'));
      if (v.decl_file) add(p, ' declared at ', code(str(v.decl_file) + (has(v.decl_line) ? ':' + v.decl_line : '')));
      if (v.origin) add(p, h('span', 'muted', ' \u00b7 name from ' + ({ 'map-name': 'the map clause', symbol: 'the symbol table', address: 'its address' }[v.origin] || str(v.origin))));
      add(vs, p);
      add(d, vs);
    }

    var occ = occurrences(r);
    var actions = h('div', 'd-actions'), show = h('button', null, 'Show on timeline');
    show.type = 'button';
    show.addEventListener('click', function () { timeline.zoomToMarks(); $('sec-timeline').scrollIntoView(); });
    add(actions, show);
    add(occ, actions);
    add(d, occ);
    $('detail').scrollTop = 0;
  }

  /* ---------- timeline ---------- */

  var timeline = (function () {
    var T = isObj(D.timeline) ? D.timeline : null;
    var devices = [], marksBySeq = new Map(), current = [], colors = {};
    var t0 = 0, t1 = 1, binNs = 1, nbins = 0, view = [0, 1];
    var LANE_H = 24, AXIS_H = 22, drag = null, raf = 0;
    var tip = $('tl-tip');

    function init() {
      var box = $('timeline');
      var legend = clear($('timeline-legend'));
      LANE_ORDER.forEach(function (l) {
        add(legend, add(h('span'), h('span', 'sw l-' + l), LANES[l].label));
      });
      add(legend, add(h('span'), h('span', 'sw l-mark'), 'selected finding'));
      if (!T || !arr(T.devices).length) {
        add(box, h('p', 'empty', T ? 'The run recorded no kernels, transfers or allocations.'
          : 'No timeline: this report was made without its database.'));
        return;
      }
      t0 = num(T.start_ns); t1 = Math.max(t0 + 1, num(T.end_ns));
      binNs = Math.max(1, num(T.bin_ns)); nbins = Math.max(1, num(T.bins));
      view = [t0, t1];
      LANE_ORDER.forEach(function (l) { colors[l] = cssVar(LANES[l].color); });
      colors.mark = cssVar('--mark');
      arr(T.marks).forEach(function (m) {
        if (!Array.isArray(m)) return;
        var k = m[0], list = marksBySeq.get(k) || [];
        list.push({ device: m[1], lane: m[2], b: num(m[3]), e: num(m[4]), bytes: num(m[5]) });
        marksBySeq.set(k, list);
      });
      arr(T.devices).filter(isObj).forEach(function (dv) {
        var lanes = obj(dv.lanes), names = LANE_ORDER.filter(function (l) { return isObj(lanes[l]); });
        if (!names.length) return;
        var dev = { device: dv.device, names: names, lanes: {} };
        names.forEach(function (l) { dev.lanes[l] = dense(lanes[l]); });
        var wrap = h('div', 'tl-dev');
        var runDev = arr(run.devices).filter(function (x) { return isObj(x) && x.device === dv.device; })[0];
        var type = str(dv.type) || (runDev ? str(runDev.type) : '');
        add(wrap, add(h('div', 'tl-dev-title'), 'Device ' + str(dv.device) + ' ', type ? h('span', 'muted', type) : null));
        var grid = h('div', 'tl-grid'), labels = h('div', 'tl-labels');
        dev.labels = {};
        names.forEach(function (l) {
          var lab = h('div', 'tl-label');
          add(lab, h('span', 'sw l-' + l), LANES[l].label);
          dev.labels[l] = lab;
          add(labels, lab);
        });
        add(labels, h('div', 'tl-label axis'));
        var cw = h('div', 'tl-canvas-wrap'), cv = h('canvas');
        cv.setAttribute('aria-label', 'Timeline of device ' + str(dv.device));
        cv.setAttribute('role', 'img');
        add(cw, cv);
        add(grid, labels, cw);
        add(wrap, grid);
        add(box, wrap);
        dev.canvas = cv; dev.wrap = cw;
        dev.height = names.length * LANE_H + AXIS_H;
        cv.style.height = dev.height + 'px';
        hook(dev);
        devices.push(dev);
      });
      window.addEventListener('resize', schedule);
      resolutionNote();
      $('tl-reset').addEventListener('click', function () { setView(t0, t1); });
      $('tl-zoom-finding').addEventListener('click', zoomToMarks);
      schedule();
    }

    /* A lane's sparse bins as dense arrays, for drawing and hover look-ups. */
    function dense(l) {
      var o = { busy: new Float64Array(nbins), count: new Float64Array(nbins), bytes: new Float64Array(nbins),
        intervals: Array.isArray(l.intervals) ? l.intervals : null, peak: num(l.peak_bytes), total: num(l.count) };
      arr(l.bins).forEach(function (b) {
        if (!Array.isArray(b) || !(b[0] >= 0 && b[0] < nbins)) return;
        o.busy[b[0]] = num(b[1]); o.count[b[0]] = num(b[2]); o.bytes[b[0]] = num(b[3]);
      });
      if (!o.peak) for (var i = 0; i < nbins; i++) o.peak = Math.max(o.peak, o.bytes[i]);
      return o;
    }

    function schedule() {
      if (!raf) raf = requestAnimationFrame(function () { raf = 0; devices.forEach(draw); });
    }

    function setView(a, b) {
      var minSpan = Math.max(100, binNs / 50);
      if (b - a < minSpan) { var c = (a + b) / 2; a = c - minSpan / 2; b = c + minSpan / 2; }
      view = [Math.max(t0, a), Math.min(t1, b)];
      if (view[1] <= view[0]) view = [t0, t1];
      $('tl-reset').disabled = view[0] === t0 && view[1] === t1;
      resolutionNote();
      schedule();
    }

    /* Say when the zoom goes past what the bins can show. */
    function resolutionNote() {
      var base = 'Drag across a lane to zoom in; double-click to zoom out. Bar height shows how busy each lane was; ' +
        'the selected finding\'s occurrences are outlined in red.';
      var exactAll = devices.every(function (d) {
        return d.names.every(function (l) { return l === 'mapped' || d.lanes[l].intervals; });
      });
      if (!exactAll && (view[1] - view[0]) / binNs < 40)
        base += ' Busy time is kept per ' + fmtDur(binNs) + ' bin, so this zoom shows bins, not single events.';
      $('timeline-hint').textContent = base;
    }

    function draw(dev) {
      var cv = dev.canvas, W = dev.wrap.clientWidth, H = dev.height, dpr = window.devicePixelRatio || 1;
      if (!W) return;
      if (cv.width !== Math.round(W * dpr) || cv.height !== Math.round(H * dpr)) {
        cv.width = Math.round(W * dpr); cv.height = Math.round(H * dpr);
      }
      var g = cv.getContext('2d');
      g.setTransform(dpr, 0, 0, dpr, 0, 0);
      g.clearRect(0, 0, W, H);
      var v0 = view[0], span = view[1] - view[0];
      function x(t) { return (t - v0) / span * W; }

      dev.names.forEach(function (name, li) {
        var y = li * LANE_H, L = dev.lanes[name];
        g.fillStyle = li % 2 ? '#f7f8fa' : '#fbfcfd';
        g.fillRect(0, y, W, LANE_H);
        var top = y + 3, lh = LANE_H - 6;
        g.fillStyle = colors[name];
        if (L.intervals && name !== 'mapped') {
          L.intervals.forEach(function (iv) {
            if (!Array.isArray(iv) || iv[1] < v0 || iv[0] > view[1]) return;
            var a = x(iv[0]), b = x(iv[1]);
            g.fillRect(a, top, Math.max(1, b - a), lh);
          });
          return;
        }
        /* One value per pixel column: the busiest bin in it (mapped: the peak bytes). */
        var col = new Float32Array(Math.ceil(W) + 1);
        var i0 = Math.max(0, Math.floor((v0 - t0) / binNs)), i1 = Math.min(nbins - 1, Math.floor((view[1] - t0) / binNs));
        for (var i = i0; i <= i1; i++) {
          var val;
          if (name === 'mapped') val = L.peak ? L.bytes[i] / L.peak : 0;
          else {
            if (!L.busy[i] && !L.count[i]) continue;
            val = Math.max(0.12, Math.min(1, L.busy[i] / binNs));
          }
          if (!val) continue;
          var bt = t0 + i * binNs, p0 = Math.max(0, Math.floor(x(bt))), p1 = Math.min(W, Math.ceil(x(bt + binNs)));
          if (p1 <= p0) p1 = p0 + 1;
          for (var p = p0; p < p1 && p < col.length; p++) if (val > col[p]) col[p] = val;
        }
        g.globalAlpha = name === 'mapped' ? 0.7 : 1;
        for (var q = 0; q < col.length; q++) {
          if (!col[q]) continue;
          var hh = Math.max(2, col[q] * lh);
          g.fillRect(q, top + lh - hh, 1, hh);
        }
        g.globalAlpha = 1;
      });

      /* the selected finding's occurrences */
      var marked = {};
      current.forEach(function (m) {
        if (m.device !== dev.device) return;
        var li = dev.names.indexOf(m.lane);
        if (li < 0 || m.e < v0 || m.b > view[1]) return;
        marked[m.lane] = true;
        var a = x(m.b), b = x(m.e), w = Math.max(3, b - a), y = li * LANE_H + 1;
        if (w === 3) a -= 1;
        g.fillStyle = 'rgba(224, 49, 49, 0.28)';
        g.fillRect(a, y, w, LANE_H - 2);
        g.strokeStyle = colors.mark; g.lineWidth = 1.5;
        g.strokeRect(a + 0.75, y + 0.75, w - 1.5, LANE_H - 3.5);
      });
      dev.names.forEach(function (l) { dev.labels[l].classList.toggle('marked', !!marked[l]); });

      /* time axis */
      var ay = dev.names.length * LANE_H;
      g.fillStyle = '#cfd4dc';
      g.fillRect(0, ay, W, 1);
      g.fillStyle = '#5b6577'; g.font = '11px system-ui, sans-serif'; g.textBaseline = 'top';
      var step = niceStep(span / Math.max(1, W / 110));
      for (var t = Math.ceil(v0 / step) * step; t <= view[1]; t += step) {
        var tx = Math.round(x(t)) + 0.5;
        g.fillRect(tx, ay, 1, 4);
        var label = fmtAt(t, step * 10);
        var tw = g.measureText(label).width;
        g.fillText(label, Math.min(W - tw, Math.max(0, tx - tw / 2)), ay + 6);
      }
      if (drag && drag.dev === dev && Math.abs(drag.x1 - drag.x0) > 2) {
        g.fillStyle = 'rgba(57, 73, 171, 0.15)';
        g.fillRect(Math.min(drag.x0, drag.x1), 0, Math.abs(drag.x1 - drag.x0), ay);
      }
    }

    function niceStep(raw) {
      var p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-9))));
      var m = raw / p;
      return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
    }

    function hook(dev) {
      var cv = dev.canvas;
      function pos(e) { var r = cv.getBoundingClientRect(); return { x: e.clientX - r.left, y: e.clientY - r.top, w: r.width }; }
      cv.addEventListener('mousedown', function (e) {
        var p = pos(e);
        drag = { dev: dev, x0: p.x, x1: p.x, w: p.w };
        e.preventDefault();
      });
      window.addEventListener('mousemove', function (e) {
        if (drag && drag.dev === dev) { drag.x1 = pos(e).x; schedule(); }
      });
      window.addEventListener('mouseup', function () {
        if (!drag || drag.dev !== dev) return;
        var d = drag; drag = null;
        if (Math.abs(d.x1 - d.x0) > 4) {
          var span = view[1] - view[0], a = Math.max(0, Math.min(d.x0, d.x1)), b = Math.min(d.w, Math.max(d.x0, d.x1));
          setView(view[0] + a / d.w * span, view[0] + b / d.w * span);
        } else schedule();
      });
      cv.addEventListener('dblclick', function () { setView(t0, t1); });
      cv.addEventListener('mousemove', function (e) { hover(dev, pos(e), e); });
      cv.addEventListener('mouseleave', function () { tip.hidden = true; });
    }

    function hover(dev, p, e) {
      var li = Math.floor(p.y / LANE_H);
      if (li < 0 || li >= dev.names.length || !p.w) { tip.hidden = true; return; }
      var name = dev.names[li], L = dev.lanes[name], span = view[1] - view[0];
      var ta = view[0] + (p.x - 1) / p.w * span, tb = view[0] + (p.x + 1) / p.w * span;
      var lines = [];
      var mk = current.filter(function (m) { return m.device === dev.device && m.lane === name && m.e >= ta && m.b <= tb; });
      if (mk.length) lines.push(['b', (state.selected ? state.selected.id + ': ' : '') + plural(mk.length, 'occurrence') + ' here']);
      var hit = null;
      if (L.intervals) L.intervals.forEach(function (iv) { if (!hit && iv[1] >= ta && iv[0] <= tb) hit = iv; });
      if (hit && name !== 'mapped') {
        lines.push(['b', LANES[name].label + ' \u00b7 event ' + hit[3]]);
        lines.push(['', fmtAt(hit[0], runNs) + ' \u2192 ' + fmtAt(hit[1], runNs) + ' (' + fmtDur(hit[1] - hit[0]) + ')']);
        if (name !== 'kernels') lines.push(['', fmtBytes(hit[2])]);
      } else {
        var i0 = Math.max(0, Math.floor((ta - t0) / binNs)), i1 = Math.min(nbins - 1, Math.floor((tb - t0) / binNs));
        var busy = 0, count = 0, bytes = 0, peak = 0;
        for (var i = i0; i <= i1; i++) { busy += L.busy[i]; count += L.count[i]; bytes += L.bytes[i]; peak = Math.max(peak, L.bytes[i]); }
        if (!mk.length && !busy && !count && !peak) { tip.hidden = true; return; }
        var width = Math.max(binNs, (i1 - i0 + 1) * binNs);
        lines.push(['b', LANES[name].label + ' \u00b7 ' + fmtAt(t0 + i0 * binNs, span) + ' \u2013 ' + fmtAt(t0 + (i1 + 1) * binNs, span)]);
        if (name === 'mapped') lines.push(['', 'up to ' + fmtBytes(peak) + ' mapped']);
        else {
          lines.push(['', plural(count, name === 'kernels' ? 'kernel' : name === 'alloc_ops' ? 'operation' : 'transfer') + ' starting' +
            (name !== 'kernels' && bytes ? ', ' + fmtBytes(bytes) : '')]);
          lines.push(['', 'busy ' + fmtPct(busy, width) + ' of the time']);
        }
      }
      clear(tip);
      lines.forEach(function (l, i) {
        if (i) tip.appendChild(h('br'));
        tip.appendChild(l[0] ? h('b', null, l[1]) : document.createTextNode(l[1]));
      });
      tip.hidden = false;
      var tx = Math.min(window.innerWidth - tip.offsetWidth - 8, e.clientX + 14);
      tip.style.left = tx + 'px';
      tip.style.top = (e.clientY + 16) + 'px';
    }

    /* The timeline marks of a finding: exact ones from the database, else its events. */
    function setMarks(r) {
      current = [];
      r.events.forEach(function (e) {
        var list = has(e.seq) ? marksBySeq.get(e.seq) : null;
        if (list) { current = current.concat(list); return; }
        if (!has(e.begin_ns)) return;
        var lane = e.op === 'to_device' ? 'to_device' : e.op === 'from_device' ? 'from_device'
          : (e.op === 'alloc' || e.op === 'delete') ? 'alloc_ops' : null;
        if (lane) current.push({ device: evDevice(e), lane: lane, b: e.begin_ns, e: has(e.end_ns) ? e.end_ns : e.begin_ns, bytes: num(e.bytes) });
      });
      $('tl-zoom-finding').disabled = !current.length || !devices.length;
      schedule();
    }

    function zoomToMarks() {
      if (!current.length) return;
      var a = Infinity, b = -Infinity;
      current.forEach(function (m) { a = Math.min(a, m.b); b = Math.max(b, m.e); });
      var pad = Math.max((b - a) * 0.15, binNs * 3, 1000);
      setView(a - pad, b + pad);
    }

    return { init: init, setMarks: setMarks, zoomToMarks: zoomToMarks };
  })();

  /* ---------- start ---------- */

  renderHeader();
  renderKpis();
  renderKindControls();
  initTable();
  timeline.init();
  refreshView();
  var want = decodeURIComponent((location.hash || '').slice(1));
  var first = byId.get(want) || state.view[0];
  if (first) select(first, true);
  else {
    $('detail-empty').textContent = records.length ? 'Select a finding.' : 'Nothing to fix: no finding was reported for this run.';
  }
  window.addEventListener('hashchange', function () {
    var r = byId.get(decodeURIComponent(location.hash.slice(1)));
    if (r && r !== state.selected) select(r, true);
  });
  document.documentElement.dataset.ready = 'true';
})();
