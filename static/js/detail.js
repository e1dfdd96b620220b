  /* ---------- finding detail ---------- */

  function code(text) { return h('code', null, text); }

  function devicesOf(r) {
    var d = arr(r.f.devices).filter(has);
    if (!d.length) r.events.forEach(function (e) { var x = evDevice(e); if (has(x) && d.indexOf(x) < 0) d.push(x); });
    return d;
  }
  /* Places as a sentence names them: "device 0", "devices 0, 1", "the host", "the host and device 0". */
  function placeList(d) {
    var dev = d.filter(function (x) { return x !== hostDevice; }), names = [];
    if (dev.length < d.length) names.push('the host');
    if (dev.length) names.push((dev.length === 1 ? 'device ' : 'devices ') + dev.join(', '));
    return names.join(' and ');
  }
  /* Where the finding's transfers went, "from the host to device 0" ('' when no event says). */
  function route(r) {
    var src = [], dst = [];
    r.events.forEach(function (e) {
      if (e.op === 'alloc' || e.op === 'delete') return;
      if (has(e.src_device) && src.indexOf(e.src_device) < 0) src.push(e.src_device);
      if (has(e.dest_device) && dst.indexOf(e.dest_device) < 0) dst.push(e.dest_device);
    });
    if (!dst.length) return '';
    return (src.length ? 'from ' + placeList(src) + ' ' : '') + 'to ' + placeList(dst);
  }
  /* Where the finding's allocations were made (never the host: it is where the data lives). */
  function allocPlaces(r) {
    var d = [];
    r.events.forEach(function (e) {
      var x = e.op === 'alloc' ? e.dest_device : e.op === 'delete' ? e.src_device : null;
      if (has(x) && d.indexOf(x) < 0) d.push(x);
    });
    if (!d.length) d = devicesOf(r).filter(function (x) { return x !== hostDevice; });
    return d.length ? placeList(d) : 'the device';
  }

  /* "What happened", in words, as DOM nodes. */
  function whatHappened(r) {
    var p = h('p', 'd-what'), v = r.variable ? code(r.variable) : 'Mapped data';
    var n = r.occ, b = fmtBytes(r.bytes), way = route(r);
    /* The count and the places in separate phrases: "sent 6 more times, from the host to device 0". */
    switch (r.kind) {
      case 'duplicate_transfer':
        add(p, v, ' was sent ' + plural(n, 'more time') + (way ? ', ' + way + ',' : '') +
          ' with content the receiver already held (' + b + ' moved for nothing).');
        break;
      case 'round_trip':
        add(p, v, ' came back unchanged: ' + plural(n, 'transfer') + ' returned data to the side that ' +
          'had sent it (' + b + ')' + (r.flavour === 'host_device_host' ? ': the device copy came back to the host unchanged.'
            : r.flavour === 'device_host_device' ? ': the host sent back what the device had given it.'
            : r.flavour === 'device_device' ? ', between two devices.' : '.'));
        break;
      case 'repeated_alloc':
        add(p, v, ' was allocated and freed ' + plural(n, 'more time') + ' than needed, on ' + allocPlaces(r) +
          ' (' + b + ' in total).');
        break;
      case 'unused_alloc':
        add(p, v, ' was allocated ' + plural(n, 'time') + ' on ' + allocPlaces(r) + ' (' + b +
          ') but no kernel ran on it while it was mapped.');
        break;
      case 'unused_transfer':
        add(p, v, ' was sent ' + plural(n, 'time') + (way ? ', ' + way + ',' : '') + ' (' + b + ') but no kernel read it: ' +
          'it was overwritten first or arrived after the last kernel.');
        break;
      default:
        add(p, kindInfo(r.kind).about || 'A data mapping pattern that costs time.', ' (' + plural(n, 'occurrence') + ', ' + b + ').');
    }
    if (r.savings > 0)
      add(p, ' Fixing it saves about ', h('strong', null, fmtDur(r.savings)),
        runNs ? ' (' + fmtPct(r.savings, runNs) + ' of the run).' : '.');
    /* "The host" is OpenMP's initial device: under host offload device 0 runs on the same CPU. */
    if (has(hostDevice) && /\bthe host\b/.test(p.textContent))
      add(p, h('span', 'muted', ' (The host: the program\'s own memory, OpenMP\'s initial device; a device is an offload target, ' +
        'even one that runs on the same CPU.)'));
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
        if (r.flavour === 'device_host_device') {
          /*
           * The host got the data from the device and sends it back: the device's results must
           * come back (an update from, or tofrom on the region), as the plan's patch does.
           */
          add(p, 'The host gets ', code(v), ' back from the device and sends it again at ', code(at),
            ': keep it on the device across these constructs with a ', code('#pragma omp target data'),
            ' region around the loop, and bring the device\u2019s results back with ',
            code('target update from(' + v + ')'), ' right after a construct whose results the host reads (or map it ',
            code('map(tofrom: ' + v + ')'), ' on the region; ', code('map(to: ...)'), ' alone would lose them).');
        } else if (r.flavour === 'host_device_host') {
          add(p, 'At ', code(at), ', the data comes back unchanged: map ', code(v),
            ' with ', code('map(to: ...)'), ' instead of ', code('map(tofrom: ...)'),
            ' if no run of the construct changes it, or copy back only when the host needs it with ',
            code('target update from(' + v + ')'), '.');
        } else {
          add(p, 'At ', code(at), ', ', code(v), ' comes back unchanged between devices: keep one copy where it is used.');
        }
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
    var col = l.file && has(l.column) && l.column > 0 && has(l.line) && l.line > 0 ? ':' + l.column : '';
    var wh = pathNodes(h('span', 'where'), locText(l) + col);
    wh.title = locFull(l) + col;
    add(head, wh);
    if (l['function']) add(head, h('span', 'src', 'in ' + str(l['function']) + '()'));
    if (l.origin) add(head, h('span', 'src', 'from ' + (ORIGINS[l.origin] || str(l.origin))));
    add(d, head);
    var sn = snippet(l);
    if (sn) add(d, sn);
    else {
      var p = h('p', 'nosrc');
      if (l.source_changed === true) add(p, 'Source not quoted: ' + (str(l.source_note) || 'the source file changed since the recording') +
        '; line ' + (has(l.line) ? l.line : '?') + ' is the line of the recorded program.');
      else if (l.file) add(p, 'Source not available in this report (the file was not readable when it was made).');
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
    /* A round trip's occurrence is two operations (the send and the return),
       a repeated allocation's two more: say both counts when they differ. */
    var ops = r.events.length;
    add(sec, h('h3', null, 'Occurrences (' + fmtInt(r.occ) + ')' +
      (ops && ops !== r.occ ? ': ' + fmtInt(ops) + ' operations' : '')));
    if (!r.events.length) { add(sec, h('p', 'occ-note', 'The report lists no individual events for this finding.')); return sec; }
    var t = h('table', 'occ'), head = h('tr');
    ['#', 'At', 'Operation', 'Where', 'Bytes', 'Took'].forEach(function (c, i) {
      add(head, h('th', i >= 4 ? 'r' : '', c));
    });
    add(t, add(h('thead'), head));
    var body = h('tbody');
    r.events.slice(0, OCC_LIMIT).forEach(function (e, i) {
      var tr = h('tr');
      add(tr, h('td', null, i + 1), h('td', 'at', has(e.begin_ns) ? fmtAt(e.begin_ns, runNs) : '\u2014'),
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
    var dl = pathNodes(h('span', 'd-loc'), r.loc);
    dl.title = r.locFull || r.loc;
    add(title, h('span', 'd-id', r.id), badge(r.kind), flavourNode(r.flavour), dl);
    add(head, title, whatHappened(r));
    var stats = h('dl', 'd-stats');
    function stat(k, val) { add(stats, add(h('div'), h('dt', null, k), h('dd', null, val))); }
    stat('Est. saving', fmtDur(r.savings));
    var rf = isObj(D.repeat) ? arr(D.repeat.findings).filter(function (x) { return isObj(x) && x.fingerprint === r.f.fingerprint; })[0] : null;
    if (rf) {
      var rsv = obj(rf.savings_ns);
      stat('Median of ' + num(D.repeat.runs), fmtDur(num(rsv.median)) + ' (' + fmtDur(num(rsv.min)) + ' .. ' + fmtDur(num(rsv.max)) +
        (num(rf.runs) < num(D.repeat.runs) ? ', in ' + num(rf.runs) : '') + ')');
    }
    stat('Occurrences', fmtInt(r.occ));
    if (r.tell) stat('Told apart by', r.tell);
    stat('Bytes', fmtBytes(r.bytes));
    stat('Devices', devicesOf(r).map(function (x) { return x === hostDevice ? 'host' : 'device ' + x; }).join(', ') || '\u2014');
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
      if (v.decl_file) {
        var decl = code(str(v.decl_path || v.decl_file) + (has(v.decl_line) ? ':' + v.decl_line : ''));
        decl.title = str(v.decl_file) + (has(v.decl_line) ? ':' + v.decl_line : '');
        add(p, ' declared at ', decl);
      }
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

