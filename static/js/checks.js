  /* ---------- mapping bugs (record --check): their own section, first ---------- */

  /* report.json "checks": present only for a run recorded with --check. */
  function renderChecks() {
    var c = D.checks;
    if (!isObj(c)) return;
    var list = clear($('checks-list')), found = arr(c.findings).filter(isObj);
    var skipped = clear($('checks-skipped'));
    $('sec-checks').hidden = false;
    $('checks-count').textContent = found.length ? plural(found.length, 'bug') : '';
    $('checks-empty').hidden = found.length > 0;
    $('checks-empty').textContent = 'None found: no copy back of bytes the device never wrote, ' +
      'no host writes lost to a copy back, no host writes racing a copy in flight.';
    found.forEach(function (f) {
      var li = h('li', 'check'), loc = obj(f.location), head = h('div', 'check-head');
      var where = pathNodes(h('span', 'loc', null), locText(loc));
      where.title = locFull(loc);
      add(head, h('span', 'badge k-check', str(f.title) || str(f.kind)), where,
        isObj(f.variable) ? h('code', 'var', str(f.variable.name)) : null,
        h('span', 'muted', plural(num(f.occurrences), 'time')));
      add(li, head, h('p', 'check-what', str(f.message)), h('p', 'check-fix', 'Fix: ' + str(f.fix)));
      li.dataset.rule = str(f.rule);
      list.appendChild(li);
    });
    arr(c.skipped).forEach(function (s) { skipped.appendChild(h('li', null, 'Not checked on ' + str(s))); });
  }

