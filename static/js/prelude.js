/*
 * mapprof report.html: renders the data embedded in #mapprof-data.
 *
 * Rules this file keeps:
 * - every string from the data reaches the page through textContent (or a
 *   canvas fillText), never through innerHTML or an attribute parsed as markup;
 * - no network: nothing is fetched, no element gets a URL from the data but
 *   a process's own page on the several-databases page (procs.js pageLink:
 *   plain relative path segments, never a scheme);
 * - it must not contain the character sequences that would end its inline
 *   script element early (html.c refuses to inline it otherwise);
 * - it stays fast with 10 000 findings (one page of rows is in the DOM) and a
 *   100 000-event timeline (the data comes binned; canvases draw the bins).
 */
(function () {
  'use strict';

  var KINDS = {
    duplicate_transfer: { label: 'Duplicate transfer',
      about: 'A device received content it already had.' },
    round_trip: { label: 'Round trip',
      about: 'Data went to the other side and came back unchanged.' },
    repeated_alloc: { label: 'Repeated allocation',
      about: 'The same host data was allocated and freed on the device again and again.' },
    unused_alloc: { label: 'Unused allocation',
      about: 'Device memory was allocated but no kernel ran while it existed.' },
    unused_transfer: { label: 'Unused transfer',
      about: 'Data was sent to a device but no kernel could read it.' }
  };
  /* What tells look-alike findings apart: a glyph (the way the data went) and a word. */
  var FLAVOURS = {
    same_data: { glyph: '\u21bb', word: 'same data' },
    same_content: { glyph: '=', word: 'same content' },
    host_device_host: { glyph: 'host\u2192dev\u2192host', word: 'back unchanged' },
    device_host_device: { glyph: 'dev\u2192host\u2192dev', word: 'sent back' },
    device_device: { glyph: 'dev\u2192dev', word: 'between devices' },
    overwritten: { glyph: '\u2715', word: 'overwritten' },
    after_last_kernel: { glyph: '\u21e5', word: 'after last kernel' }
  };
  var PLAN_PAGE = 50;
  var KIND_ORDER = ['duplicate_transfer', 'round_trip', 'repeated_alloc', 'unused_alloc', 'unused_transfer'];
  var LANES = {
    kernels: { label: 'Kernels', color: '--l-kernels' },
    to_device: { label: 'Host \u2192 device', color: '--l-to' },
    from_device: { label: 'Device \u2192 host', color: '--l-from' },
    alloc_ops: { label: 'Alloc / free', color: '--l-alloc' },
    mapped: { label: 'Mapped memory', color: '--l-mapped' }
  };
  var LANE_ORDER = ['kernels', 'to_device', 'from_device', 'alloc_ops', 'mapped'];
  var ORIGINS = {
    'ompt-ident': 'source record from clang (-g)',
    dwarf: 'DWARF line table',
    symbol: 'ELF symbol only',
    none: 'no symbol information'
  };
  var PAGE_SIZE = 50;
  var OCC_LIMIT = 200;

