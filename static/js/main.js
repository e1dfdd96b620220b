  /* ---------- start ---------- */

  renderHeader();
  renderKpis();
  renderKindControls();
  initTable();
  timeline.init();
  refreshView();
  var want = decodeURIComponent((location.hash || '').slice(1));
  var first = byId.get(want) || state.view[0];
  if (first) select(first, true);
  else {
    $('detail-empty').textContent = records.length ? 'Select a finding.' : 'Nothing to fix: no finding was reported for this run.';
  }
  window.addEventListener('hashchange', function () {
    var r = byId.get(decodeURIComponent(location.hash.slice(1)));
    if (r && r !== state.selected) select(r, true);
  });
  document.documentElement.dataset.ready = 'true';
})();
