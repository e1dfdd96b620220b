  /* ---------- sharing: printing, copying ---------- */

  /*
   * A button that copies 'text' exactly (the patch as report.json has it).
   * The clipboard API where the page may use it (file:// counts as secure),
   * else a selected hidden textarea and the copy command.  data-copied says
   * how it went ('true' / 'false'), and the label for a moment.
   */
  function copyButton(text, label) {
    var b = h('button', 'copy', label);
    b.type = 'button';
    b.title = 'Copy to the clipboard';
    b.addEventListener('click', function () {
      function said(ok) {
        b.dataset.copied = ok ? 'true' : 'false';
        b.textContent = ok ? 'Copied' : 'Copy failed: select the text';
        setTimeout(function () { b.textContent = label; }, 1600);
      }
      function fallback() {
        var ta = h('textarea', 'copy-buffer');
        ta.value = text;
        ta.setAttribute('readonly', '');
        document.body.appendChild(ta);
        ta.select();
        var ok = false;
        try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
        document.body.removeChild(ta);
        said(ok);
      }
      if (navigator.clipboard && navigator.clipboard.writeText)
        navigator.clipboard.writeText(text).then(function () { said(true); }, fallback);
      else fallback();
    });
    return b;
  }

  /*
   * Printing shows everything: every plan open with its edit and findings,
   * both the plans and the full findings table (no pages), no navigation
   * (report.css, @media print).  Set up on 'beforeprint' and when the print
   * media query starts matching (print preview, emulated print media), put
   * back afterwards.
   */
  function initPrint(expand, restore) {
    var on = false;
    function start() {
      if (on) return;
      on = true;
      expand();
      document.documentElement.dataset.print = 'true';
    }
    function stop() {
      if (!on) return;
      on = false;
      delete document.documentElement.dataset.print;
      restore();
    }
    window.addEventListener('beforeprint', start);
    window.addEventListener('afterprint', function () {
      if (!window.matchMedia || !window.matchMedia('print').matches) stop();
    });
    if (window.matchMedia) {
      var mq = window.matchMedia('print');
      var fn = function () { if (mq.matches) start(); else stop(); };
      if (mq.addEventListener) mq.addEventListener('change', fn);
      else if (mq.addListener) mq.addListener(fn);
      if (mq.matches) start();
    }
  }

  /* The single-run page's: plans and table expanded, then as they were. */
  function printSingle() {
    var opened = [];
    initPrint(function () {
      while (planState.shown < plans.length) renderPlans();
      Array.prototype.forEach.call(document.querySelectorAll('#plans-list li.plan details'), function (det) {
        if (det.open) return;
        if (det.planData) fillPlan(det, det.planData);
        det.open = true;
        opened.push(det);
      });
      state.all = true;
      renderTable();
    }, function () {
      opened.forEach(function (det) { det.open = false; });
      opened = [];
      state.all = false;
      renderTable();
    });
  }
