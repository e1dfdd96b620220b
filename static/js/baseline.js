  /* ---------- compared with a baseline ('mapprof report --baseline BEFORE.db') ---------- */

  /*
   * report.json's "baseline" (a 'mapprof diff' document): the findings the
   * change removed, those that remain, the new ones, and the predicted
   * against the measured savings.  Text nodes only.
   */
  function renderBaseline() {
    var B = D.baseline, sec = $('sec-baseline');
    if (!isObj(B) || !sec) return;
    var before = obj(B.before), pred = obj(B.predicted), meas = obj(B.measured_savings);
    var dbs = arr(before.databases).map(str);
    $('baseline-name').textContent = dbs.length ? basename(dbs[0]) + (dbs.length > 1 ? ' (+' + (dbs.length - 1) + ')' : '') : 'the baseline';
    var removed = arr(B.removed).filter(isObj), remaining = arr(B.remaining).filter(isObj), added = arr(B['new']).filter(isObj);

    var R = obj(B.results), rl = $('baseline-results');
    if (rl) {
      rl.textContent = str(R.summary || 'results: not checked');
      rl.className = 'baseline-results results-' + str(R.status || 'none');
    }

    var dl = clear($('baseline-kpis'));
    function kpi(label, value, note) {
      add(dl, add(h('div', 'kpi'), h('div', 'k', label), h('div', 'v', value), note ? h('div', 'muted', note) : null));
    }
    function med(o) { return num(obj(o).median); }
    function pct(e) { return has(e) ? (e >= 0 ? '+' : '') + (100 * e).toFixed(1) + '% error' : ''; }
    kpi('Findings', removed.length + ' removed \u00b7 ' + remaining.length + ' remain \u00b7 ' + added.length + ' new');
    kpi('Predicted savings', fmtDur(med(pred.savings_ns)), 'of the removed findings');
    kpi('Measured, transfers + allocations', fmtDur(med(meas.busy_ns)), pct(pred.relative_error_busy));
    if (pred.relative_error_wall_of === 'program_ns')
      kpi('Measured, run time less the collector\u2019s', fmtDur(med(meas.program_ns)), pct(pred.relative_error_wall));
    else
      kpi('Measured, run time', fmtDur(med(meas.duration_ns)), pct(pred.relative_error_wall));
    var cn = $('baseline-collector-note');
    if (cn) {
      cn.textContent = str(B.collector_note || '');
      cn.hidden = !B.collector_note;
    }
    kpi('Bytes moved', fmtBytes(med(obj(B.before).bytes)) + ' \u2192 ' + fmtBytes(med(obj(B.after).bytes)));

    function where(f) {
      f = obj(f);
      return str(f.file || '?') + (has(f.line) ? ':' + f.line : '') + (f['function'] ? ' in ' + str(f['function']) + '()' : '');
    }
    function row(mark, f, now, note) {
      f = obj(f);
      var li = h('li', 'baseline-' + mark);
      add(li, h('span', 'badge ' + kindClass(str(f.kind)), kindInfo(str(f.kind)).label),
        ' ', f.variable ? h('code', null, str(f.variable)) : null, ' ', h('span', 'plan-loc', where(f)),
        now && has(obj(now).line) && obj(now).line !== f.line ? h('span', 'muted', ' (now line ' + obj(now).line + ')') : null,
        ' ', h('span', 'muted', plural(num(f.occurrences), 'occurrence') + ' \u00b7 ' + fmtDur(num(f.savings_ns)) + ' predicted'),
        note ? h('span', 'muted', ' \u00b7 ' + note) : null);
      return li;
    }
    function list(id, items, fn) {
      var ul = clear($(id));
      items.forEach(function (x) { add(ul, fn(x)); });
      if (!items.length) add(ul, h('li', 'muted', 'none'));
    }
    list('baseline-removed', removed, function (f) { return row('removed', f); });
    list('baseline-remaining', remaining, function (m) {
      return row('remaining', m.before, m.after, m.match === 'loose' ? 'directive changed' : '');
    });
    list('baseline-new', added, function (f) { return row('new', f); });
    sec.hidden = false;
  }
