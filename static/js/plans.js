  /* ---------- directives to change (fix plans) ---------- */

  /*
   * report.json's plans: one per directive, most savings first.  A report
   * without them (an older mapprof) gets them here, grouped by the first
   * location's file:line, with the savings summed ("up to": a shared
   * operation would count twice).
   */
  var plansExact = Array.isArray(D.plans);
  var plans = (plansExact ? arr(D.plans).filter(isObj).map(function (p) {
    var members = arr(p.findings).map(function (id) { return byId.get(str(id)); }).filter(Boolean);
    return { dir: obj(p.directive), members: members, savings: num(p.savings_ns), occ: num(p.occurrences),
      edit: isObj(p.edit) ? p.edit : null };
  }) : (function () {
    var groups = new Map(), out = [];
    records.forEach(function (r) {
      var k = r.locs.length ? locFull(r.locs[0]) : 'F' + r.id;
      var g = groups.get(k);
      if (!g) { g = { dir: r.locs[0] || {}, members: [], savings: 0, occ: 0 }; groups.set(k, g); out.push(g); }
      g.members.push(r); g.savings += r.savings; g.occ += r.occ;
    });
    return out.sort(function (a, b) { return b.savings - a.savings; });
  })()).filter(function (p) { return p.members.length; });
  var planState = { shown: 0, tab: '' };

  function kindSummary(members) {
    var c = {};
    members.forEach(function (r) { c[r.kind] = (c[r.kind] || 0) + 1; });
    return KIND_ORDER.concat(Object.keys(c).filter(function (k) { return KIND_ORDER.indexOf(k) < 0; }))
      .filter(function (k) { return c[k]; }).map(function (k) { return [k, c[k]]; });
  }

  function planItem(p, i) {
    var li = h('li', 'plan'), det = h('details'), sum = h('summary');
    li.dataset.plan = String(i);
    var head = h('div', 'plan-head'), where = pathNodes(h('span', 'plan-loc'), locText(p.dir));
    where.title = locFull(p.dir);
    add(head, h('span', 'plan-n', (i + 1) + '.'), where,
      p.dir['function'] ? h('span', 'fn', 'in ' + str(p.dir['function']) + '()') : null);
    var sav = h('span', 'plan-sav');
    add(sav, h('span', 'v', (plansExact ? '' : 'up to ') + fmtDur(p.savings)));
    var bar = h('div', 'savbar'), fill = h('span');
    fill.style.width = (plans[0] && plans[0].savings ? 100 * p.savings / plans[0].savings : 0).toFixed(1) + '%';
    add(sav, add(bar, fill));
    var kinds = h('div', 'plan-kinds');
    kindSummary(p.members).forEach(function (kc) {
      add(kinds, add(h('span', 'badge ' + kindClass(kc[0])), kc[1] + ' \u00d7 ' + kindInfo(kc[0]).label));
    });
    add(kinds, h('span', 'muted', plural(p.members.length, 'finding') + ' \u00b7 ' + plural(p.occ, 'occurrence')));
    add(sum, add(h('div', 'plan-main'), head, kinds), sav);
    add(det, sum);
    det.addEventListener('toggle', function () { if (det.open) fillPlan(det, p); });
    det.planData = p;
    add(li, det);
    return li;
  }

  /* An opened plan's content, made once (printing opens every plan: share.js). */
  function fillPlan(det, p) {
    if (det.children.length === 1) add(det, planEdit(p), planFindings(p));
  }

  /* The suggested edit: its text, the loop, the patch (text nodes only, wrapped). */
  function planEdit(p) {
    var e = p.edit;
    if (!e || !str(e.text)) return null;
    var box = h('div', 'plan-edit');
    add(box, h('p', 'plan-edit-text', str(e.text)));
    var loop = obj(e.loop);
    if (num(loop.first_line) > 0)
      add(box, h('p', 'muted', 'Loop around the directive: lines ' + num(loop.first_line) + '\u2013' + num(loop.last_line) + '.'));
    if (str(e.patch)) {
      var ph = h('div', 'patch-head');
      add(ph, h('p', 'muted', 'Suggested patch (apply with patch -p1 in the source root):'), copyButton(str(e.patch), 'Copy patch'));
      add(box, ph, h('pre', 'plan-patch', str(e.patch)));
    }
    return box;
  }

  /* The findings under a plan, most savings first; each opens its detail. */
  function planFindings(p) {
    var ul = h('ul', 'plan-findings');
    p.members.slice().sort(function (a, b) { return b.savings - a.savings || a.idx - b.idx; }).forEach(function (r) {
      var li = h('li'), btn = h('button', 'pf');
      btn.type = 'button';
      btn.dataset.id = r.id;
      var v = h('span', 'pf-var', r.variable || '\u2014');
      if (r.tell) add(v, ' ', h('span', 'tell', r.tell));
      if (r.variable) v.title = r.variable + (r.tell ? ' (' + r.tell + ')' : '');
      add(btn, h('span', 'pf-id', r.id), badge(r.kind), flavourNode(r.flavour), v,
        h('span', 'pf-occ', plural(r.occ, 'occurrence')), h('span', 'pf-sav', fmtDur(r.savings)));
      btn.addEventListener('click', function () { select(r, false); });
      add(ul, add(li, btn));
    });
    return ul;
  }

  function renderPlans() {
    var list = $('plans-list'), end = Math.min(plans.length, planState.shown + PLAN_PAGE);
    var frag = document.createDocumentFragment();
    for (var i = planState.shown; i < end; i++) frag.appendChild(planItem(plans[i], i));
    list.appendChild(frag);
    planState.shown = end;
    $('plans-pager').hidden = end >= plans.length;
  }

  function initPlans() {
    $('plans-count').textContent = fmtInt(plans.length);
    $('tab-plans-count').textContent = fmtInt(plans.length);
    $('tab-findings-count').textContent = fmtInt(records.length);
    $('plans-hint').textContent = plans.length ? 'One entry per construct to change, with what changing it saves' +
      (plansExact ? ' (each operation counted once)' : ' (summed: up to)') + '; open one for its findings.' : '';
    var empty = $('plans-empty');
    empty.hidden = plans.length > 0;
    if (!plans.length) empty.textContent = nothingMapped ? 'No directive to change: ' + nothingMapped
      : 'No directive to change: no finding was reported.';
    $('plans-more').addEventListener('click', renderPlans);
    $('tab-plans').addEventListener('click', function () { showTab('plans'); });
    $('tab-findings').addEventListener('click', function () { showTab('findings'); });
    renderPlans();
  }

  function showTab(t) {
    planState.tab = t;
    $('plans-panel').hidden = t !== 'plans';
    $('findings-panel').hidden = t !== 'findings';
    $('tab-plans').setAttribute('aria-selected', t === 'plans' ? 'true' : 'false');
    $('tab-findings').setAttribute('aria-selected', t === 'findings' ? 'true' : 'false');
    document.documentElement.dataset.view = t;
  }

