  /* ---------- kernels: where the kernel time went ---------- */

  /* The kernels table (report.json "kernels"): one row per launching place and device, most time first. */
  function renderKernels() {
    var ks = arr(D.kernels).filter(isObj), body = clear($('kernels-body'));
    var total = ks.reduce(function (s, k) { return s + num(k.total_ns); }, 0);
    var launches = ks.reduce(function (s, k) { return s + num(k.launches); }, 0);
    $('kernels-count').textContent = ks.length ? plural(launches, 'launch', 'launches') + ' at ' +
      plural(ks.length, 'place') : '';
    $('kernels-empty').hidden = ks.length > 0;
    $('kernels-table').hidden = !ks.length;
    if (!ks.length) {
      $('kernels-empty').textContent = Array.isArray(D.kernels) ? 'The run launched no kernels.'
        : 'No kernels table: this report was made without it (an older mapprof).';
      return;
    }
    ks.forEach(function (k) {
      var tr = h('tr'), loc = obj(k.location);
      var where = h('td', 'c-loc');
      add(where, pathNodes(h('span', 'loc', null), locText(loc)));
      where.title = locFull(loc) + (loc['function'] ? ' in ' + str(loc['function']) + '()' : '');
      add(tr, where,
        h('td', 'c-dev', devName(k.device)),
        h('td', 'c-num', fmtInt(k.launches)),
        h('td', 'c-num', fmtDur(k.total_ns)),
        h('td', 'c-num', fmtDur(k.mean_ns)),
        h('td', 'c-num', total ? fmtPct(num(k.total_ns), total) : ''),
        h('td', 'c-num', fmtBytes(k.bytes_to_device)),
        h('td', 'c-num', fmtBytes(k.bytes_from_device)));
      body.appendChild(tr);
    });
  }
