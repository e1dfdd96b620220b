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

