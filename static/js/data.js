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
  /* Several databases (one per process): the processes view instead (procs.js). */
  if (isProcsDoc(D)) {
    renderProcs(D);
    if (isObj(D.generator)) $('gen-version').textContent = str(D.generator.version);
    document.documentElement.dataset.ready = 'true';
    return;
  }
  var run = obj(D.run), summary = obj(D.summary);
  /* Any status but 'complete': the outputs cover what was recorded, and say so. */
  var runIncomplete = run.status !== undefined && run.status !== 'complete';
  var hostDevice = has(run.host_device) ? run.host_device : null;
  var runNs = num(run.duration_ns) || num(summary.duration_ns);
  /* Kernels ran and the map clauses moved nothing (unified shared memory): said instead of "no findings". */
  var nothingMapped = str(summary.nothing_mapped);

  /* file:line as a person reads it: relative to the source root (the full path: locFull). */
  function locText(l) {
    l = obj(l);
    if (l.file) return str(l.path || l.file) + (has(l.line) && l.line > 0 ? ':' + l.line : '');
    if (l['function']) return str(l['function']) + '()';
    if (l.module) return basename(l.module) + (l.offset ? '+' + str(l.offset) : '');
    if (l.codeptr) return str(l.codeptr);
    return 'unknown location';
  }
  function locFull(l) {
    l = obj(l);
    return l.file ? str(l.file) + (has(l.line) && l.line > 0 ? ':' + l.line : '') : locText(l);
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
      locFull: locs.length ? locFull(locs[0]) : '',
      flavour: str(f.flavour),
      fn: locs.length ? str(locs[0]['function']) : '',
      variable: varText(v),
      occ: num(f.occurrences) || arr(f.events).length,
      bytes: num(f.bytes),
      savings: num(f.savings_ns),
      events: arr(f.events).filter(isObj)
    };
    r.search = [r.id, r.kind, kindInfo(r.kind).label, r.variable,
      FLAVOURS[r.flavour] ? FLAVOURS[r.flavour].glyph + ' ' + FLAVOURS[r.flavour].word : ''].concat(locs.map(function (l) {
      return [locText(l), locFull(l), str(l['function']), str(l.module)].join(' ');
    })).join(' ').toLowerCase();
    return r;
  });
  /*
   * Look-alikes: findings of one kind, directive and variable (a pointer swap
   * gives one per buffer; a detector may split one buffer's occurrences).
   * Each gets what tells it apart: its buffer, the way its data went and its
   * other directives where the group's differ, and when its occurrences
   * happened (issue 26: after a swap, several rows read the same otherwise).
   */
  (function () {
    var groups = new Map();
    records.forEach(function (r) {
      var key = [r.kind, r.flavour, r.locFull || r.loc, r.variable].join('\u0000');
      var g = groups.get(key);
      if (!g) groups.set(key, g = []);
      g.push(r);
    });
    /* Each trait shown where it differs within the group; the time range always. */
    function range(r) {
      var lo = Infinity, hi = -Infinity;
      r.events.forEach(function (e) {
        if (has(e.begin_ns)) lo = Math.min(lo, e.begin_ns);
        hi = Math.max(hi, has(e.end_ns) ? e.end_ns : has(e.begin_ns) ? e.begin_ns : -Infinity);
      });
      return lo <= hi ? (lo === hi ? 'at ' + fmtAt(lo, runNs) : fmtAt(lo, runNs) + '\u2013' + fmtAt(hi, runNs)) : '';
    }
    var TRAITS = [
      function (r) { var a = str(obj(r.f.data).address); return a ? 'buffer ' + a : ''; },
      function (r) {
        var seen = [];
        r.events.forEach(function (e) { var x = direction(e); if (seen.indexOf(x) < 0) seen.push(x); });
        return seen.join(', ');
      },
      function (r) { return r.locs.length > 1 ? 'also ' + r.locs.slice(1).map(locText).join(', ') : ''; }
    ];
    groups.forEach(function (g) {
      if (g.length < 2) return;
      var shown = TRAITS.map(function (t) {
        var v = g.map(t);
        return v.some(function (x) { return x !== v[0]; }) ? v : null;
      }).filter(Boolean);
      var ranges = g.map(range);
      g.forEach(function (r, i) {
        var parts = shown.map(function (v) { return v[i]; }).filter(Boolean);
        if (ranges[i]) parts.push(ranges[i]);
        if (!parts.length) parts.push((i + 1) + ' of ' + g.length + ' alike');
        r.tell = parts.join(' \u00b7 ');
        r.search += ' ' + r.tell.toLowerCase();
      });
    });
  })();
  var byId = new Map();
  records.forEach(function (r) { byId.set(r.id, r); });
  var maxSavings = records.reduce(function (m, r) { return Math.max(m, r.savings); }, 0);

