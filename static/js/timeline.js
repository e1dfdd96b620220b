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
      overlapLine();
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
      colors.thread = cssVar('--thread');
      arr(T.marks).forEach(function (m) {
        if (!Array.isArray(m)) return;
        var k = m[0], list = marksBySeq.get(k) || [];
        list.push({ device: m[1], lane: m[2], b: num(m[3]), e: num(m[4]), bytes: num(m[5]),
          thread: has(m[6]) ? m[6] : null });
        marksBySeq.set(k, list);
      });
      arr(T.devices).filter(isObj).forEach(function (dv) {
        var lanes = obj(dv.lanes), names = LANE_ORDER.filter(function (l) { return isObj(lanes[l]); });
        if (!names.length) return;
        var dev = { device: dv.device, names: names, lanes: {} };
        names.forEach(function (l) { dev.lanes[l] = dense(lanes[l]); });
        /* One lane per host thread, as the trace has: everything the thread did on this device. */
        dev.threads = arr(dv.threads).filter(isObj).map(function (t) {
          var o = dense(t);
          o.thread = t.thread; o.tid = t.tid; o.role = str(t.role);
          o.name = threadName(t);
          return o;
        });
        var wrap = h('div', 'tl-dev');
        var runDev = arr(run.devices).filter(function (x) { return isObj(x) && x.device === dv.device; })[0];
        var type = str(dv.type) || (runDev ? str(runDev.type) : '');
        var isHost = dv.device === hostDevice;
        var ov = overlapOf(dv.device);
        add(wrap, add(h('div', 'tl-dev-title'), isHost ? 'Host ' : 'Device ' + str(dv.device) + ' ', type ? h('span', 'muted', type) : null,
          ov ? h('span', 'muted tl-dev-overlap', (type ? ' \u00b7 ' : '') + overlapText(ov)) : null));
        var grid = h('div', 'tl-grid'), labels = h('div', 'tl-labels');
        dev.labels = {};
        names.forEach(function (l) {
          var lab = h('div', 'tl-label');
          add(lab, h('span', 'sw l-' + l), LANES[l].label);
          dev.labels[l] = lab;
          add(labels, lab);
        });
        dev.threads.forEach(function (t) {
          var lab = h('div', 'tl-label tl-thread');
          add(lab, h('span', 'sw l-thread'), t.name);
          lab.title = t.name + (t.role === 'OpenMP thread' ? ': a worker or a hidden helper thread (the recording does not say which)' : '');
          t.label = lab;
          add(labels, lab);
        });
        add(labels, h('div', 'tl-label axis'));
        var cw = h('div', 'tl-canvas-wrap'), cv = h('canvas');
        cv.setAttribute('aria-label', 'Timeline of ' + (isHost ? 'the host' : 'device ' + str(dv.device)));
        cv.setAttribute('role', 'img');
        add(cw, cv);
        add(grid, labels, cw);
        add(wrap, grid);
        add(box, wrap);
        dev.canvas = cv; dev.wrap = cw; dev.rowLabel = labels.firstChild;
        dev.rows = names.length + dev.threads.length;
        dev.rowH = LANE_H;
        dev.height = dev.rows * LANE_H + AXIS_H;
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

    /* summary.overlap (docs/report-json.md, "Overlap"): transfers beside kernels on their device. */
    function overlapOf(device) {
      /* One device: the header's line says it all. */
      var both = arr(obj(summary.overlap).devices).filter(function (d) {
        return isObj(d) && num(d.transfer_ns) > 0 && num(d.kernel_ns) > 0;
      });
      return both.length > 1 ? both.filter(function (d) { return d.device === device; })[0] || null : null;
    }
    function overlapText(o) {
      var t = fmtDur(o.overlap_ns) + ' of ' + fmtDur(o.transfer_ns) + ' transfer time beside kernels (' +
        (fmtPct(num(o.overlap_ns), num(o.transfer_ns)) || '0%') + ')';
      if (num(o.nowait_transfer_ns) > 0)
        t += '; nowait transfers alone ' + fmtDur(o.nowait_alone_ns) + ', up to ' + fmtDur(o.could_overlap_ns) + ' could overlap';
      return t;
    }
    /* The header's line: the run's overlap, over every device with transfers and kernels. */
    function overlapLine() {
      var o = obj(summary.overlap), p = $('timeline-overlap');
      if (!(num(o.transfer_ns) > 0 && num(o.kernel_ns) > 0)) return;
      p.textContent = 'Overlap: ' + overlapText(o) + '.';
      p.title = 'Time a transfer and a kernel of the same device were both in flight, each nanosecond once; ' +
        'could overlap: nowait transfer time with no kernel of its device running, no more than the kernel time with no transfer beside it.';
      p.hidden = false;
    }

    /* "initial thread · tid 123", "OpenMP thread 2 · tid 125": the OS thread id and the role. */
    function threadName(t) {
      var role = str(t.role) || 'thread';
      var who = role === 'initial thread' ? role : role + ' ' + str(t.thread);
      return who + (has(t.tid) ? ' \u00b7 tid ' + t.tid : '');
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
      var cv = dev.canvas, W = dev.wrap.clientWidth, dpr = window.devicePixelRatio || 1;
      if (!W) return;
      /* A row is as tall as its label: LANE_H beside the labels' column; on a
         narrow screen (report.css) the labels lie over the canvas, each above
         its lane, and the bars go under them, 'pad' lower. */
      var rowH = Math.max(LANE_H, dev.rowLabel.offsetHeight), pad = rowH - LANE_H;
      var H = dev.rows * rowH + AXIS_H;
      if (H !== dev.height) { dev.height = H; cv.style.height = H + 'px'; }
      dev.rowH = rowH;
      if (cv.width !== Math.round(W * dpr) || cv.height !== Math.round(H * dpr)) {
        cv.width = Math.round(W * dpr); cv.height = Math.round(H * dpr);
      }
      var g = cv.getContext('2d');
      g.setTransform(dpr, 0, 0, dpr, 0, 0);
      g.clearRect(0, 0, W, H);
      var v0 = view[0], span = view[1] - view[0];
      function x(t) { return (t - v0) / span * W; }

      dev.names.forEach(function (name, li) {
        var y = li * rowH, L = dev.lanes[name];
        g.fillStyle = li % 2 ? '#f7f8fa' : '#fbfcfd';
        g.fillRect(0, y, W, rowH);
        var top = y + pad + 3, lh = LANE_H - 6;
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

      /* the threads' lanes: exact intervals in their lane's colour, else busy bins */
      dev.threads.forEach(function (T, ti) {
        var y = (dev.names.length + ti) * rowH, top = y + pad + 3, lh = LANE_H - 6;
        g.fillStyle = (dev.names.length + ti) % 2 ? '#f7f8fa' : '#fbfcfd';
        g.fillRect(0, y, W, rowH);
        if (T.intervals) {
          T.intervals.forEach(function (iv) {
            if (!Array.isArray(iv) || iv[1] < v0 || iv[0] > view[1]) return;
            var a = x(iv[0]), b = x(iv[1]);
            g.fillStyle = colors[iv[4]] || colors.thread;
            g.fillRect(a, top, Math.max(1, b - a), lh);
          });
          return;
        }
        g.fillStyle = colors.thread;
        var i0 = Math.max(0, Math.floor((v0 - t0) / binNs)), i1 = Math.min(nbins - 1, Math.floor((view[1] - t0) / binNs));
        for (var i = i0; i <= i1; i++) {
          if (!T.busy[i] && !T.count[i]) continue;
          var val = Math.max(0.12, Math.min(1, T.busy[i] / binNs)), bt = t0 + i * binNs;
          var p0 = Math.floor(x(bt)), p1 = Math.max(p0 + 1, Math.ceil(x(bt + binNs))), hh = Math.max(2, val * lh);
          g.fillRect(p0, top + lh - hh, p1 - p0, hh);
        }
      });

      /* the selected finding's occurrences */
      var marked = {}, markedThreads = {};
      current.forEach(function (m) {
        if (m.device !== dev.device) return;
        var ti = m.thread === null ? -1 : dev.threads.findIndex(function (t) { return t.thread === m.thread; });
        if (ti >= 0 && m.lane !== 'mapped' && m.e >= v0 && m.b <= view[1]) {
          markedThreads[ti] = true;
          outline(m, dev.names.length + ti);
        }
        var li = dev.names.indexOf(m.lane);
        if (li < 0 || m.e < v0 || m.b > view[1]) return;
        marked[m.lane] = true;
        outline(m, li);
      });
      function outline(m, row) {
        var a = x(m.b), b = x(m.e), w = Math.max(3, b - a), y = row * rowH + pad + 1;
        if (w === 3) a -= 1;
        g.fillStyle = 'rgba(224, 49, 49, 0.28)';
        g.fillRect(a, y, w, LANE_H - 2);
        g.strokeStyle = colors.mark; g.lineWidth = 1.5;
        g.strokeRect(a + 0.75, y + 0.75, w - 1.5, LANE_H - 3.5);
      }
      dev.names.forEach(function (l) { dev.labels[l].classList.toggle('marked', !!marked[l]); });
      dev.threads.forEach(function (t, ti) { t.label.classList.toggle('marked', !!markedThreads[ti]); });

      /* time axis */
      var ay = dev.rows * rowH;
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
      var li = Math.floor(p.y / dev.rowH);
      if (li >= dev.names.length && li < dev.rows && p.w) { hoverThread(dev, dev.threads[li - dev.names.length], p, e); return; }
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

    function showTip(lines, e) {
      clear(tip);
      lines.forEach(function (l, i) {
        if (i) tip.appendChild(h('br'));
        tip.appendChild(l[0] ? h('b', null, l[1]) : document.createTextNode(l[1]));
      });
      tip.hidden = false;
      tip.style.left = Math.min(window.innerWidth - tip.offsetWidth - 8, e.clientX + 14) + 'px';
      tip.style.top = (e.clientY + 16) + 'px';
    }

    /* A thread's lane: its event under the pointer, else its busy share there. */
    function hoverThread(dev, T, p, e) {
      var span = view[1] - view[0], ta = view[0] + (p.x - 1) / p.w * span, tb = view[0] + (p.x + 1) / p.w * span;
      var lines = [['b', T.name]], hit = null;
      if (T.intervals) T.intervals.forEach(function (iv) { if (!hit && iv[1] >= ta && iv[0] <= tb) hit = iv; });
      if (hit) {
        lines.push(['', (LANES[hit[4]] ? LANES[hit[4]].label : str(hit[4])) + ' \u00b7 event ' + hit[3]]);
        lines.push(['', fmtAt(hit[0], runNs) + ' \u2192 ' + fmtAt(hit[1], runNs) + ' (' + fmtDur(hit[1] - hit[0]) + ')']);
        if (hit[4] !== 'kernels') lines.push(['', fmtBytes(hit[2])]);
      } else {
        var i0 = Math.max(0, Math.floor((ta - t0) / binNs)), i1 = Math.min(nbins - 1, Math.floor((tb - t0) / binNs));
        var busy = 0, count = 0;
        for (var i = i0; i <= i1; i++) { busy += T.busy[i]; count += T.count[i]; }
        if (!busy && !count) { tip.hidden = true; return; }
        lines.push(['', plural(count, 'event') + ' starting, busy ' + fmtPct(busy, Math.max(binNs, (i1 - i0 + 1) * binNs)) + ' of the time']);
      }
      showTip(lines, e);
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

