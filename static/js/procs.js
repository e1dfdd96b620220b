  /* ---------- several databases: the processes view ----------
   * 'mapprof report A.db B.db ...' embeds the several-databases document
   * (report-json.md, "Several databases": processes, merged_findings).  The
   * page then shows that instead of the single-run view: the template's
   * sections are replaced by a Processes table (by rank, each linked to its
   * own page) and the merged findings, which sort, filter and open a detail
   * with the fix as the single page's findings do.  Only summaries are
   * embedded (no events, no timeline), so 1,000 processes stay a small page;
   * every string still goes through textContent.
   */

  function isProcsDoc(d) {
    return Array.isArray(d.processes) && Array.isArray(d.merged_findings) && !Array.isArray(d.findings);
  }

  /* "0-3,5" of integers (each once). */
  function rangesText(v) {
    v = v.filter(has).map(Math.round).sort(function (a, b) { return a - b; })
      .filter(function (x, i, all) { return !i || all[i - 1] !== x; });
    var out = [];
    for (var i = 0; i < v.length;) {
      var j = i;
      while (j + 1 < v.length && v[j + 1] === v[j] + 1) j++;
      out.push(j > i ? v[i] + '\u2013' + v[j] : String(v[i]));
      i = j + 1;
    }
    return out.join(', ');
  }

  /* By rank, those without one after them, each by pid (as a job's ranks read). */
  function byRank(a, b) {
    var ra = has(a.p.rank), rb = has(b.p.rank);
    if (ra !== rb) return ra ? -1 : 1;
    return (ra ? a.p.rank - b.p.rank : 0) || num(a.p.pid) - num(b.p.pid) || a.i - b.i;
  }

  /*
   * A process's own page: the relative link 'mapprof report' wrote, used only
   * when it is plain path segments (percent-encoded, '..' allowed): never a
   * scheme, a host or a query, so it can only open a file beside this one.
   */
  function pageLink(s) {
    s = str(s);
    return /^(?:[A-Za-z0-9._~%-]+\/)*[A-Za-z0-9._~%-]*[A-Za-z0-9_~%-]\.html$/.test(s) ? s : '';
  }

  function renderProcs(d) {
    var procs = arr(d.processes).filter(isObj).map(function (p, i) { return { p: p, i: i }; }).sort(byRank)
      .map(function (x) { return x.p; });
    var merged = arr(d.merged_findings).filter(isObj);
    var first = procs.length ? arr(procs[0].argv).map(str) : [];
    var prog = first.length ? basename(first[0]) : 'unknown program';
    var ops = 0, kernels = 0, savings = 0, incomplete = 0;
    procs.forEach(function (p) {
      ops += num(p.data_ops); kernels += num(p.kernels);
      if (p.status !== 'complete') incomplete++;
    });
    merged.forEach(function (f) { savings += num(f.savings_ns); });

    document.title = 'mapprof: ' + prog + ' (' + plural(procs.length, 'process', 'processes') + ')';
    $('top-program').textContent = first.join(' ');
    var nav = clear(document.querySelector('.topnav'));
    add(nav, h('a', null, 'Processes'), h('a', null, 'Merged findings'));
    nav.children[0].href = '#sec-processes';
    nav.children[1].href = '#sec-merged';

    var app = clear($('app'));
    var head = h('section', 'run');
    var h1 = h('h1');
    add(h1, h('span', 'muted', 'OpenMP offload data mapping report for'), ' ',
      h('span', 'procs-prog', prog), ' ', h('span', 'muted', '(' + plural(procs.length, 'process', 'processes') + ')'));
    add(head, h1);
    if (incomplete) {
      var ban = h('div', 'notice banner', plural(incomplete, 'recording') + ' of ' + fmtInt(procs.length)
        + ' incomplete: the report covers what was recorded (see each process\u2019s \u201cRecording\u201d).');
      ban.setAttribute('role', 'alert');
      add(head, ban);
    }
    add(app, head);

    var k = h('section', 'kpis');
    k.setAttribute('aria-label', 'Summary');
    function card(label, value, sub, cls) {
      add(k, add(h('div', 'kpi' + (cls ? ' ' + cls : '')), h('div', 'label', label), h('div', 'value', value),
        sub ? h('div', 'sub', sub) : null));
    }
    card('Processes', fmtInt(procs.length), incomplete ? fmtInt(incomplete) + ' incomplete' : 'all complete');
    card('Data operations', fmtInt(ops), plural(kernels, 'kernel'));
    /* 'record --ranks': the job recorded some of its ranks; the others are named. */
    var rk = isObj(d.ranks) ? d.ranks : null;
    if (rk) card('Ranks recorded', str(rk.recorded), has(rk.of) ? 'of ' + fmtInt(num(rk.of)) + '; not recorded: '
      + (num(rk.not_recorded_count) ? str(rk.not_recorded) : 'none') : 'of a job of unknown size');
    card('Distinct findings', fmtInt(merged.length), 'merged by fingerprint');
    card('Estimated savings', fmtDur(savings), 'summed over the processes', 'hero');
    add(app, k);

    var pages = {};
    /* By rank and by pid: a merged finding names its processes by one or the other. */
    procs.forEach(function (p) {
      if (has(p.rank) && !pages['r' + p.rank]) pages['r' + p.rank] = p;
      if (has(p.pid) && !pages['p' + p.pid]) pages['p' + p.pid] = p;
    });
    add(app, procsTable(procs), mergedSection(merged, pages));
    /* Printing: the tables are whole already; report.css hides the navigation and controls. */
    initPrint(function () {}, function () {});
  }

  function panel(id, title, count, hint) {
    var sec = h('section', 'panel procs-panel');
    sec.id = id;
    var ph = h('div', 'panel-head'), h2 = h('h2', null, title + ' ');
    h2.id = id + '-title';
    sec.setAttribute('aria-labelledby', h2.id);
    add(h2, h('span', 'count', count));
    add(ph, h2);
    if (hint) add(ph, h('p', 'hint', hint));
    add(sec, ph);
    return sec;
  }

  /* A header row; a column with a sort key gets a sort button. */
  function table(cls, cols) {
    var t = h('table', 'procs-table ' + cls), tr = h('tr');
    cols.forEach(function (c) {
      var th = h('th', c[1], c[2] ? null : c[0]);
      th.scope = 'col';
      if (c[2]) {
        var b = h('button', 'sort', c[0]);
        b.type = 'button';
        b.dataset.sort = c[2];
        add(th, b);
      }
      add(tr, th);
    });
    add(t, add(h('thead'), tr));
    return t;
  }

  /* The link to a process's own page, or the command that makes it. */
  function pageNode(p, label) {
    var href = pageLink(p.report);
    if (href) {
      var a = h('a', 'proc-report', label || 'its report');
      a.href = href;
      a.title = decodeURIComponent(href);
      return a;
    }
    var c = h('span', 'proc-cmd');
    add(c, h('span', 'muted', 'its page: '), h('code', null, 'mapprof report --html PAGE ' + shellQuote(str(p.database))));
    return c;
  }

  function procsTable(procs) {
    var sec = panel('sec-processes', 'Processes', fmtInt(procs.length),
      'One database per process, by rank; each one\u2019s own report (its findings, source and timeline) is linked.');
    var t = table('procs', [['PID', 'c-num'], ['Rank', 'c-num'], ['Command', 'c-argv'], ['Started', ''],
      ['Ended', ''], ['Recording', ''], ['Data ops', 'c-num'], ['Findings', 'c-num'], ['Est. saving', 'c-num']]);
    var body = h('tbody'), frag = document.createDocumentFragment();
    procs.forEach(function (p) {
      var tr = h('tr'), argv = arr(p.argv).map(str);
      var cmd = h('td', 'c-argv', argv.length ? argv.map(shellQuote).join(' ') : '(not recorded)');
      var db = h('span', 'db');
      pathNodes(db, str(p.database));
      add(db, ' \u00b7 ', pageNode(p));
      add(cmd, db);
      var ended = str(p.ended) || 'unknown';
      if (has(p.exit_status)) ended += ' (' + p.exit_status + ')';
      var st = str(p.status) || 'unknown';
      add(tr, h('td', 'c-num', has(p.pid) ? String(p.pid) : '\u2014'),
        h('td', 'c-num', has(p.rank) ? String(p.rank) : '\u2014'), cmd,
        h('td', null, str(p.started) || '\u2014'), h('td', null, ended),
        h('td', st === 'complete' ? null : 'bad', st),
        h('td', 'c-num', fmtInt(p.data_ops)), h('td', 'c-num', fmtInt(p.findings)),
        h('td', 'c-num', fmtDur(p.savings_ns)));
      frag.appendChild(tr);
    });
    add(t, add(body, frag));
    add(sec, add(h('div', 'table-wrap'), t));
    if (!procs.length) add(sec, h('p', 'empty', 'No process was reported.'));
    return sec;
  }

  /* The merged findings: a sortable, filterable table beside the selected one's detail. */
  function mergedSection(merged, pages) {
    var rows = merged.map(function (f, i) {
      var byPid = Array.isArray(f.pids), list = arr(byPid ? f.pids : f.ranks);
      var r = {
        f: f, idx: i, fp: str(f.fingerprint), kind: str(f.kind), flavour: str(f.flavour),
        variable: str(f.variable), byPid: byPid, who: list,
        n: has(f.processes) ? f.processes : list.length,
        occ: num(f.occurrences), bytes: num(f.bytes), savings: num(f.savings_ns),
        where: f.file ? str(f.file) + (has(f.line) && f.line > 0 ? ':' + f.line : '') : 'unknown location'
      };
      r.search = [r.kind, kindInfo(r.kind).label, r.variable, r.where, r.fp,
        FLAVOURS[r.flavour] ? FLAVOURS[r.flavour].word : ''].join(' ').toLowerCase();
      return r;
    });
    var ms = { sort: 'savings', dir: -1, kind: '', text: '', selected: null, view: rows.slice() };

    var area = h('section', 'findings-area merged-area');
    area.id = 'sec-merged';
    area.setAttribute('aria-labelledby', 'sec-merged-title');
    var sec = panel('sec-merged-panel', 'Merged findings', fmtInt(merged.length),
      'The same finding (same kind, code and data) in several processes is one row; select one for its fix and its processes.');
    sec.id = '';
    var h2 = sec.querySelector('h2');
    h2.id = 'sec-merged-title';
    sec.setAttribute('aria-labelledby', h2.id);
    var count = h2.querySelector('.count');

    var controls = h('div', 'controls'), kl = h('label', 'ctl', 'Kind '), tl = h('label', 'ctl', 'Search ');
    var sel = h('select'), input = h('input');
    sel.id = 'merged-kind';
    input.id = 'merged-text';
    input.type = 'search';
    input.placeholder = 'file, variable, kind';
    input.autocomplete = 'off';
    input.spellcheck = false;
    var counts = {};
    rows.forEach(function (r) { counts[r.kind] = (counts[r.kind] || 0) + 1; });
    var all = h('option', null, 'All kinds (' + fmtInt(rows.length) + ')');
    all.value = '';
    add(sel, all);
    KIND_ORDER.concat(Object.keys(counts).filter(function (x) { return KIND_ORDER.indexOf(x) < 0; }))
      .filter(function (x) { return counts[x]; }).forEach(function (x) {
        var o = h('option', null, kindInfo(x).label + ' (' + fmtInt(counts[x]) + ')');
        o.value = x;
        add(sel, o);
      });
    add(controls, add(kl, sel), add(tl, input));
    add(sec.querySelector('.panel-head'), controls);

    var t = table('merged', [['Finding', 'c-what', 'kind'], ['Where', 'c-where'], ['Processes', 'c-who', 'processes'],
      ['Occurrences', 'c-num', 'occurrences'], ['Bytes', 'c-num', 'bytes'], ['Est. saving', 'c-num', 'savings']]);
    var body = h('tbody');
    add(t, body);
    add(sec, add(h('div', 'table-wrap'), t));
    var empty = h('p', 'empty', merged.length ? 'No merged finding matches the filter.' : 'No findings in any process.');
    add(sec, empty);

    var detail = h('article', 'panel detail merged-detail');
    detail.id = 'merged-detail';
    detail.setAttribute('aria-live', 'polite');
    detail.hidden = true;
    var none = h('p', 'empty merged-none', merged.length ? 'Select a finding to see how to fix it and where it was found.'
      : 'Nothing to fix: no process had a finding.');
    add(area, add(h('div', 'findings-col'), sec), add(h('div', 'detail-col'), none, detail));

    function cmp(a, b) {
      var d = 0;
      switch (ms.sort) {
        case 'kind': d = kindInfo(a.kind).label.localeCompare(kindInfo(b.kind).label); break;
        case 'bytes': d = a.bytes - b.bytes; break;
        case 'occurrences': d = a.occ - b.occ; break;
        case 'processes': d = a.n - b.n; break;
        default: d = a.savings - b.savings;
      }
      d *= ms.dir;
      if (!d && ms.sort === 'kind') d = b.savings - a.savings;
      return d || a.idx - b.idx;
    }

    function row(r) {
      var tr = h('tr', r === ms.selected ? 'selected' : ''), what = h('td', 'c-what');
      tr.dataset.fingerprint = r.fp;
      tr.tabIndex = 0;
      add(what, badge(r.kind), flavourNode(r.flavour));
      if (r.variable) add(what, h('span', 'var', r.variable));
      var where = h('td', 'c-where');
      pathNodes(where, r.where);
      var who = h('td', 'c-who');
      add(who, h('span', 'n', plural(r.n, 'process', 'processes')), ' ',
        h('span', 'muted', 'on ' + (r.byPid ? 'pids ' : 'ranks ') + rangesText(r.who)));
      var lo = num(r.f.occurrences_min), hi = num(r.f.occurrences_max);
      var occText = lo === hi && r.n > 1 ? fmtInt(r.n) + ' \u00d7 ' + fmtInt(lo)
        : fmtInt(r.occ) + (r.n > 1 ? ' (' + fmtInt(lo) + '\u2013' + fmtInt(hi) + ' each)' : '');
      var sav = h('td', 'c-num', fmtDur(r.savings)), pp = isObj(r.f.per_process) ? r.f.per_process.savings_ns : null;
      /* Each process's savings, min / mean / max over those that have it (on hover: the cell stays narrow). */
      if (r.n > 1 && isObj(pp))
        sav.title = 'per process: min ' + fmtDur(num(pp.min)) + ', mean ' + fmtDur(num(pp.mean)) + ', max '
          + fmtDur(num(pp.max));
      add(tr, what, where, who, h('td', 'c-num', occText), h('td', 'c-num', fmtBytes(r.bytes)), sav);
      return tr;
    }

    function refresh() {
      var k = ms.kind, q = ms.text;
      ms.view = rows.filter(function (r) { return (!k || r.kind === k) && (!q || r.search.indexOf(q) >= 0); });
      ms.view.sort(cmp);
      var frag = document.createDocumentFragment();
      ms.view.forEach(function (r) { frag.appendChild(row(r)); });
      add(clear(body), frag);
      count.textContent = ms.view.length === rows.length ? fmtInt(rows.length)
        : fmtInt(ms.view.length) + ' of ' + fmtInt(rows.length);
      empty.hidden = ms.view.length > 0;
      Array.prototype.forEach.call(t.querySelectorAll('th button.sort'), function (b) {
        if (b.dataset.sort === ms.sort) b.parentNode.setAttribute('aria-sort', ms.dir < 0 ? 'descending' : 'ascending');
        else b.parentNode.removeAttribute('aria-sort');
      });
    }

    function select(r, focus) {
      ms.selected = r;
      Array.prototype.forEach.call(body.children, function (tr) {
        var on = tr.dataset.fingerprint === r.fp;
        tr.classList.toggle('selected', on);
        tr.setAttribute('aria-selected', on ? 'true' : 'false');
        if (on && focus) tr.focus();
      });
      renderMergedDetail(detail, r, pages);
      none.hidden = true;
      detail.hidden = false;
    }

    Array.prototype.forEach.call(t.querySelectorAll('th button.sort'), function (b) {
      b.addEventListener('click', function () {
        var key = b.dataset.sort;
        if (ms.sort === key) ms.dir = -ms.dir;
        else { ms.sort = key; ms.dir = key === 'kind' ? 1 : -1; }
        refresh();
      });
    });
    sel.addEventListener('change', function () { ms.kind = sel.value; refresh(); });
    var timer = 0;
    input.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(function () { ms.text = input.value.trim().toLowerCase(); refresh(); }, 120);
    });
    body.addEventListener('click', function (e) {
      var tr = e.target.closest('tr');
      var r = tr && rows.filter(function (x) { return x.fp === tr.dataset.fingerprint; })[0];
      if (r) select(r, false);
    });
    body.addEventListener('keydown', function (e) {
      var i = ms.view.indexOf(ms.selected);
      if (e.key === 'Enter') {
        var tr = e.target.closest('tr');
        var r = tr && rows.filter(function (x) { return x.fp === tr.dataset.fingerprint; })[0];
        if (r) select(r, false);
      } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        var j = Math.max(0, Math.min(ms.view.length - 1, i + (e.key === 'ArrowDown' ? 1 : -1)));
        if (ms.view[j]) select(ms.view[j], true);
      }
    });
    refresh();
    return area;
  }

  /* A merged finding: what happened, how to fix it, and each process's share with its own page. */
  function renderMergedDetail(box, r, pages) {
    var d = clear(box), f = r.f;
    box.dataset.fingerprint = r.fp;
    var head = h('div', 'd-head'), title = h('div', 'd-title');
    add(title, badge(r.kind), flavourNode(r.flavour), pathNodes(h('span', 'd-loc'), r.where));
    var what = h('p', 'd-what');
    add(what, r.variable ? h('code', null, r.variable) : 'Mapped data', ': ',
      kindInfo(r.kind).about || 'a data mapping pattern that costs time.', ' Found in ',
      plural(r.n, 'process', 'processes') + ' (' + (r.byPid ? 'pid' : 'rank') + (r.who.length > 1 ? 's ' : ' ') +
      rangesText(r.who) + ').');
    if (r.savings > 0) add(what, ' Fixing it saves about ', h('strong', null, fmtDur(r.savings)), ' over them.');
    var stats = h('dl', 'd-stats');
    function stat(k, v) { add(stats, add(h('div'), h('dt', null, k), h('dd', null, v))); }
    stat('Est. saving', fmtDur(r.savings));
    stat('Occurrences', fmtInt(r.occ));
    stat('Bytes', fmtBytes(r.bytes));
    stat('Processes', fmtInt(r.n));
    add(head, title, what, stats);
    add(d, head);

    var fix = h('section', 'd-sec');
    add(fix, h('h3', null, 'How to fix'));
    if (f.advice) add(fix, h('p', 'advice', str(f.advice)));
    var hint = fixHint({ kind: r.kind, flavour: r.flavour, variable: r.variable,
      locs: f.file ? [{ file: str(f.file), line: f.line }] : [] });
    if (hint) add(fix, hint);
    add(fix, h('p', 'muted', 'Each process\u2019s own report shows the source, the suggested patch and the timeline.'));
    add(d, fix);

    var ps = h('section', 'd-sec');
    add(ps, h('h3', null, 'Processes (' + fmtInt(r.n) + ')'));
    var t = h('table', 'occ mprocs'), hr = h('tr');
    [r.byPid ? 'PID' : 'Rank', 'Occurrences', 'Bytes', 'Est. saving', 'Report'].forEach(function (c, i) {
      add(hr, h('th', i && i < 4 ? 'r' : '', c));
    });
    add(t, add(h('thead'), hr));
    var tb = h('tbody');
    /* f.each: each process's share, index for index with f.ranks (f.pids) */
    var each = obj(f.each), eo = arr(each.occurrences), eb = arr(each.bytes), es = arr(each.savings_ns);
    r.who.map(function (w, i) { return { w: w, occurrences: eo[i], bytes: eb[i], savings_ns: es[i] }; })
      .sort(function (a, b) { return num(a.w) - num(b.w); }).forEach(function (s) {
      var w = s.w, p = pages[(r.byPid ? 'p' : 'r') + w];
      add(tb, add(h('tr'), h('td', null, has(w) ? String(w) : '\u2014'),
        h('td', 'r', has(s.occurrences) ? fmtInt(s.occurrences) : '\u2014'),
        h('td', 'r', has(s.bytes) ? fmtBytes(s.bytes) : '\u2014'),
        h('td', 'r', has(s.savings_ns) ? fmtDur(s.savings_ns) : '\u2014'),
        add(h('td'), p ? pageNode(p, 'open') : '\u2014')));
    });
    add(t, tb);
    add(ps, t);
    add(d, ps);
  }
