  /* ---------- small helpers ---------- */

  function $(id) { return document.getElementById(id); }
  function h(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined || c === false) continue;
      parent.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
    }
    return parent;
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }
  function isObj(x) { return x !== null && typeof x === 'object' && !Array.isArray(x); }
  function obj(x) { return isObj(x) ? x : {}; }
  function arr(x) { return Array.isArray(x) ? x : []; }
  function num(x) { return typeof x === 'number' && isFinite(x) ? x : 0; }
  function has(x) { return typeof x === 'number' && isFinite(x); }
  function str(x) { return typeof x === 'string' ? x : (typeof x === 'number' ? String(x) : ''); }

  function fmtInt(n) { return Math.round(num(n)).toLocaleString('en-US'); }
  function fmtBytes(b) {
    b = num(b);
    if (b < 1024) return fmtInt(b) + ' B';
    var u = ['KiB', 'MiB', 'GiB', 'TiB'], i = -1;
    do { b /= 1024; i++; } while (b >= 1024 && i < u.length - 1);
    return (b >= 100 ? b.toFixed(0) : b >= 10 ? b.toFixed(1) : b.toFixed(2)) + ' ' + u[i];
  }
  function fmtDur(ns) {
    ns = num(ns);
    var a = Math.abs(ns);
    if (a < 1e3) return Math.round(ns) + ' ns';
    if (a < 1e6) return trim(ns / 1e3) + ' \u00b5s';
    if (a < 1e9) return trim(ns / 1e6) + ' ms';
    return trim(ns / 1e9) + ' s';
  }
  function trim(v) {
    var a = Math.abs(v);
    return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : v.toFixed(2);
  }
  /* A point in time, since run start, at a resolution that suits 'span'. */
  function fmtAt(ns, span) {
    ns = num(ns);
    span = span || Math.abs(ns) || 1;
    if (span >= 1e10) return (ns / 1e9).toFixed(1) + ' s';
    if (span >= 1e9) return (ns / 1e9).toFixed(2) + ' s';
    if (span >= 1e7) return (ns / 1e6).toFixed(1) + ' ms';
    if (span >= 1e6) return (ns / 1e6).toFixed(2) + ' ms';
    if (span >= 1e4) return (ns / 1e6).toFixed(3) + ' ms';
    return (ns / 1e3).toFixed(2) + ' \u00b5s';
  }
  function fmtPct(part, whole) {
    if (!whole) return '';
    var p = 100 * part / whole;
    return (p > 0 && p < 0.1 ? '<0.1' : p.toFixed(p < 10 ? 1 : 0)) + '%';
  }
  function plural(n, one, many) { return fmtInt(n) + ' ' + (Math.round(n) === 1 ? one : (many || one + 's')); }
  function basename(p) { p = str(p); var i = p.lastIndexOf('/'); return i >= 0 ? p.slice(i + 1) : p; }
  function shellQuote(s) {
    s = str(s);
    if (s !== '' && /^[A-Za-z0-9_@%+=:,.\/-]+$/.test(s)) return s;
    return "'" + s.replace(/'/g, "'\\''") + "'";
  }
  /* A path that may wrap only after a '/' (as text nodes and <wbr> elements). */
  function pathNodes(parent, text) {
    str(text).split('/').forEach(function (part, i, all) {
      parent.appendChild(document.createTextNode(part + (i < all.length - 1 ? '/' : '')));
      if (i < all.length - 1) parent.appendChild(document.createElement('wbr'));
    });
    return parent;
  }
  function kindInfo(k) { return KINDS[k] || { label: str(k) || 'Unknown', about: '' }; }
  function kindClass(k) { return KINDS[k] ? 'k-' + k : ''; }
  function badge(k) { return h('span', 'badge ' + kindClass(k), kindInfo(k).label); }
  /* The host by name ('host'), other devices by number; run.host_device is set in data.js. */
  function devName(d) { return !has(d) ? 'a device' : d === hostDevice ? 'host' : 'device ' + d; }
  function flavourNode(f) {
    var x = FLAVOURS[f];
    if (!x) return null;
    var e = h('span', 'flv');
    add(e, h('span', 'glyph', x.glyph), ' ', h('span', 'word', x.word));
    return e;
  }
  function cssVar(name) { return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888'; }

