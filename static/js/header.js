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

    if (runIncomplete) {
      var detail = run.status_detail ? str(run.status_detail) : 'no reason was recorded';
      $('run-status').textContent = 'Incomplete recording'
        + (run.status === 'incomplete' ? '' : ' (run status \u201c' + str(run.status || 'unknown') + '\u201d)')
        + ': ' + detail + '. This report covers only what was recorded.';
      $('run-status').hidden = false;
    }
    var notes = [];
    if (num(run.events_lost) > 0)
      notes.push(plural(run.events_lost, 'event') + ' were lost while recording; totals may be low.');
    /* An OpenACC run: what was recorded, and in one place what its runtime did not report. */
    var acc = obj(summary.openacc);
    if (has(acc.events))
      notes.push('Recorded through the OpenACC Profiling Interface: ' + plural(acc.events, 'event') + ' ('
        + plural(acc.constructs, 'construct') + ', ' + plural(acc.launches, 'launch', 'launches') + ', '
        + plural(acc.data_events, 'data event') + ').');
    var nr = obj(summary.not_reported);
    if (nr.text) notes.push(str(nr.text));
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
    /* 'mapprof report --same-program' / 'run --repeat N': the median over the recordings. */
    var R = D.repeat;
    if (isObj(R)) {
      var rs = obj(R.savings_ns), rp = obj(R.predicted_speedup);
      card('Over ' + num(R.runs) + ' recordings', fmtDur(num(rs.median)),
        fmtDur(num(rs.min)) + ' .. ' + fmtDur(num(rs.max)) + ' \u00b7 spread \u00b1' + num(rs.spread_pct).toFixed(1) + '%' +
        (has(rp.median) ? ' \u00b7 speedup ' + num(rp.median).toFixed(2) + '\u00d7 (' + num(rp.min).toFixed(2) + ' .. ' + num(rp.max).toFixed(2) + ')' : ''));
    }
  }

