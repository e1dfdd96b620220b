  /* ---------- start ---------- */

  renderHeader();
  renderChecks();
  renderKpis();
  renderKindControls();
  initTable();
  initPlans();
  renderBaseline();
  renderKernels();
  printSingle();
  timeline.init();
  refreshView();
  var want = decodeURIComponent((location.hash || '').slice(1));
  /* Lead with the directives to change; a link to a finding opens the flat table. */
  showTab(plans.length && !byId.get(want) ? 'plans' : 'findings');
  var first = byId.get(want) || (plans.length && plans[0].members.slice().sort(function (a, b) {
    return b.savings - a.savings || a.idx - b.idx;
  })[0]) || state.view[0];
  if (first) select(first, true);
  else {
    $('detail-empty').textContent = records.length ? 'Select a finding.'
      : nothingMapped ? 'Nothing to fix here: no data was mapped, so there is no mapping to check.'
      : 'Nothing to fix: no finding was reported for this run.';
  }
  window.addEventListener('hashchange', function () {
    var r = byId.get(decodeURIComponent(location.hash.slice(1)));
    if (r && r !== state.selected) { showTab('findings'); select(r, true); }
  });
  document.documentElement.dataset.ready = 'true';
})();
