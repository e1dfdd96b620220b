  /* ---------- several databases: the processes view ----------
   * 'mapprof report A.db B.db ...' embeds the several-databases document
   * (report-json.md, "Several databases": processes, merged_findings).  The
   * page then shows that instead of the single-run view: the template's
   * sections are replaced by a Processes table and the merged findings.
   * Only summaries are embedded (no events, no timeline), so 1,000 processes
   * stay a small page; every string still goes through textContent.
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

  function renderProcs(d) {
    var procs = arr(d.processes).filter(isObj), merged = arr(d.merged_findings).filter(isObj);
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
    card('Distinct findings', fmtInt(merged.length), 'merged by fingerprint');
    card('Estimated savings', fmtDur(savings), 'summed over the processes', 'hero');
    add(app, k);

    add(app, procsTable(procs), mergedTable(merged));
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

  function table(cls, cols) {
    var t = h('table', 'procs-table ' + cls), tr = h('tr');
    cols.forEach(function (c) {
      var th = h('th', c[1], c[0]);
      th.scope = 'col';
      add(tr, th);
    });
    add(t, add(h('thead'), tr));
    return t;
  }

  function procsTable(procs) {
    var sec = panel('sec-processes', 'Processes', fmtInt(procs.length),
      'One database per process; each one\u2019s own page: mapprof report --html PAGE DB');
    var t = table('procs', [['PID', 'c-num'], ['Rank', 'c-num'], ['Command', 'c-argv'], ['Started', ''],
      ['Ended', ''], ['Recording', ''], ['Data ops', 'c-num'], ['Findings', 'c-num'], ['Est. saving', 'c-num']]);
    var body = h('tbody'), frag = document.createDocumentFragment();
    procs.forEach(function (p) {
      var tr = h('tr'), argv = arr(p.argv).map(str);
      var cmd = h('td', 'c-argv', argv.length ? argv.map(shellQuote).join(' ') : '(not recorded)');
      var db = h('span', 'db');
      pathNodes(db, str(p.database));
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

  function mergedTable(merged) {
    var sec = panel('sec-merged', 'Merged findings', fmtInt(merged.length),
      'The same finding (same kind, code and data) in several processes is one row, most savings first.');
    var t = table('merged', [['Finding', 'c-what'], ['Where', 'c-where'], ['Processes', 'c-who'],
      ['Occurrences', 'c-num'], ['Bytes', 'c-num'], ['Est. saving', 'c-num']]);
    var body = h('tbody');
    merged.forEach(function (f) {
      var tr = h('tr'), what = h('td', 'c-what');
      tr.dataset.fingerprint = str(f.fingerprint);
      add(what, badge(str(f.kind)), flavourNode(str(f.flavour)));
      if (f.variable) add(what, h('span', 'var', str(f.variable)));
      var where = h('td', 'c-where');
      pathNodes(where, f.file ? str(f.file) + (has(f.line) && f.line > 0 ? ':' + f.line : '') : 'unknown location');
      var byPid = Array.isArray(f.pids), list = arr(byPid ? f.pids : f.ranks);
      var n = has(f.processes) ? f.processes : list.length;
      var who = h('td', 'c-who');
      add(who, h('span', 'n', plural(n, 'process', 'processes')), ' ',
        h('span', 'muted', 'on ' + (byPid ? 'pids ' : 'ranks ') + rangesText(list)));
      var occ = num(f.occurrences), lo = num(f.occurrences_min), hi = num(f.occurrences_max);
      var occText = lo === hi && n > 1 ? fmtInt(n) + ' \u00d7 ' + fmtInt(lo)
        : fmtInt(occ) + (n > 1 ? ' (' + fmtInt(lo) + '\u2013' + fmtInt(hi) + ' each)' : '');
      add(tr, what, where, who, h('td', 'c-num', occText), h('td', 'c-num', fmtBytes(f.bytes)),
        h('td', 'c-num', fmtDur(f.savings_ns)));
      body.appendChild(tr);
    });
    add(t, body);
    add(sec, add(h('div', 'table-wrap'), t));
    if (!merged.length) add(sec, h('p', 'empty', 'No findings in any process.'));
    return sec;
  }
