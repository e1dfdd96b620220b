  function renderTable() {
    var body = clear($('findings-body'));
    /* state.all: every row (printing, share.js) */
    var v = state.view, start = state.all ? 0 : state.page * PAGE_SIZE;
    var end = state.all ? v.length : Math.min(v.length, start + PAGE_SIZE);
    var frag = document.createDocumentFragment();
    for (var i = start; i < end; i++) frag.appendChild(row(v[i]));
    body.appendChild(frag);

    var total = records.length;
    $('findings-count').textContent = v.length === total ? fmtInt(total) : fmtInt(v.length) + ' of ' + fmtInt(total);
    var empty = $('findings-empty');
    empty.hidden = v.length > 0;
    if (!v.length) empty.textContent = total ? 'No finding matches the filter.'
      : runIncomplete ? 'No findings in what was recorded: the recording is incomplete (see above).'
      : nothingMapped || 'No findings: mapprof saw no wasteful data mapping in this run.';
    empty.classList.toggle('nothing-mapped', !v.length && !total && !runIncomplete && !!nothingMapped);
    $('page-info').textContent = v.length ? (start + 1) + '\u2013' + end + ' of ' + fmtInt(v.length) : '';
    $('page-prev').disabled = state.page === 0;
    $('page-next').disabled = end >= v.length;
    $('pager').hidden = v.length <= PAGE_SIZE;
    Array.prototype.forEach.call(document.querySelectorAll('th button.sort'), function (b) {
      var th = b.parentNode;
      if (b.dataset.sort === state.sort) th.setAttribute('aria-sort', state.dir < 0 ? 'descending' : 'ascending');
      else th.removeAttribute('aria-sort');
    });
  }

  function row(r) {
    var tr = h('tr', r === state.selected ? 'selected' : '');
    tr.dataset.id = r.id;
    tr.tabIndex = 0;
    var loc = h('td', 'c-loc');
    loc.title = r.locFull || r.loc;
    add(loc, pathNodes(h('span', 'where'), r.loc));
    if (r.locs.length > 1) add(loc, ' ', h('span', 'more', '+' + (r.locs.length - 1) + ' more'));
    if (r.fn) add(loc, h('span', 'fn', 'in ' + r.fn + '()'));
    var sav = h('td', 'c-sav');
    var bar = h('div', 'savbar'), fill = h('span');
    fill.style.width = (maxSavings ? 100 * r.savings / maxSavings : 0).toFixed(1) + '%';
    add(sav, h('div', 'v', fmtDur(r.savings)), add(bar, fill));
    var vr = h('td', 'c-var');
    add(vr, h('span', 'var-name', r.variable || '\u2014'));
    if (r.tell) add(vr, h('span', 'tell', r.tell));
    if (r.variable) vr.title = r.variable + (r.tell ? ' (' + r.tell + ')' : '');
    add(tr, h('td', 'c-id', r.id), add(h('td', 'c-kind'), badge(r.kind), flavourNode(r.flavour)), loc, vr,
      h('td', 'c-num c-occ', fmtInt(r.occ)), h('td', 'c-num c-bytes', fmtBytes(r.bytes)), sav);
    return tr;
  }

  function initTable() {
    $('findings-body').addEventListener('click', function (e) {
      var tr = e.target.closest('tr');
      if (tr && tr.dataset.id) select(byId.get(tr.dataset.id), false);
    });
    $('findings-body').addEventListener('keydown', function (e) {
      var i = state.view.indexOf(state.selected);
      if (e.key === 'Enter') {
        var tr = e.target.closest('tr');
        if (tr) select(byId.get(tr.dataset.id), false);
      } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        var j = Math.max(0, Math.min(state.view.length - 1, i + (e.key === 'ArrowDown' ? 1 : -1)));
        if (state.view[j]) select(state.view[j], true, true);
      }
    });
    Array.prototype.forEach.call(document.querySelectorAll('th button.sort'), function (b) {
      b.addEventListener('click', function () {
        var k = b.dataset.sort;
        if (state.sort === k) state.dir = -state.dir;
        else { state.sort = k; state.dir = k === 'kind' ? 1 : -1; }
        state.page = 0;
        refreshView();
      });
    });
    $('page-prev').addEventListener('click', function () { state.page--; renderTable(); });
    $('page-next').addEventListener('click', function () { state.page++; renderTable(); });
    var timer = 0;
    $('filter-text').addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        state.text = $('filter-text').value.trim().toLowerCase();
        state.page = 0;
        refreshView();
      }, 120);
    });
  }

  /* Select a finding; 'reveal' moves the table to its page, 'focus' focuses its row. */
  function select(r, reveal, focus) {
    if (!r) return;
    state.selected = r;
    if (reveal) {
      var i = state.view.indexOf(r);
      if (i >= 0 && Math.floor(i / PAGE_SIZE) !== state.page) {
        state.page = Math.floor(i / PAGE_SIZE);
        renderTable();
      }
    }
    Array.prototype.forEach.call($('findings-body').children, function (tr) {
      var on = tr.dataset.id === r.id;
      tr.classList.toggle('selected', on);
      tr.setAttribute('aria-selected', on ? 'true' : 'false');
      if (on && focus) tr.focus();
    });
    Array.prototype.forEach.call(document.querySelectorAll('#plans-list button.pf'), function (b) {
      b.classList.toggle('selected', b.dataset.id === r.id);
    });
    renderDetail(r);
    timeline.setMarks(r);
    try { history.replaceState(null, '', '#' + encodeURIComponent(r.id)); } catch (e) { /* file:// quirks */ }
  }

