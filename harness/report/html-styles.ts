// The inline CSS and filter script of the kit's HTML pages (no fonts, scripts or images from the network).

/** The stylesheet of the conformance report and the comparison page. */
export const STYLES = `
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa;
--pass:#1a7f37;--pass-bg:#dafbe1;--fail:#cf222e;--fail-bg:#ffebe9;--fail-line:#f5c2c0;
--reach:#9a6700;--reach-bg:#fff8c5;--inc:#8250df;--inc-bg:#fbefff;--skip:#59636e;--skip-bg:#eff2f5}
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:#fff}
main{max-width:1240px;margin:0 auto;padding:20px 32px 64px}
h1{font-size:24px;margin:0 0 4px}
h2{font-size:19px;margin:36px 0 12px;padding-bottom:6px;border-bottom:1px solid var(--line)}
h3{font-size:15px;margin:20px 0 8px}
a{color:#0969da;text-decoration:none}a:hover{text-decoration:underline}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono","Liberation Mono",monospace;font-size:13px}
.muted{color:var(--muted)}
.meta{color:var(--muted);margin:0}
.verdict{font-size:17px;font-weight:600;margin:10px 0 0}
.verdict.failed{color:var(--fail)}.verdict.passed{color:var(--pass)}
nav.toc{margin:12px 0 0;display:flex;flex-wrap:wrap;gap:6px 18px;font-size:14px}
.levels{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:16px;margin-top:18px}
section,details.failure,tr[id]{scroll-margin-top:64px}
.level{border:1px solid var(--line);border-top:6px solid var(--skip);border-radius:8px;padding:12px 18px}
.levels.with-history{grid-template-columns:repeat(4,minmax(0,1fr))}.levels.with-history .count small{display:block}
.level.claimed,.level.history.passed{border-top-color:var(--pass)}.level.not-claimed,.level.history.failed{border-top-color:var(--fail)}
.level.history .state a{margin-right:4px}
.level h3{margin:0;font-size:13px;text-transform:uppercase;letter-spacing:.08em;color:var(--muted)}
.level .what{margin:0;font-size:13px;color:var(--muted)}
.level .count{font-size:30px;font-weight:650;margin:6px 0 0;line-height:1.2}
.level .count small{font-size:14px;font-weight:400;color:var(--muted)}
.level .badge{font-size:14px}
.level .state{margin:8px 0 2px}
.counts{display:flex;flex-wrap:wrap;gap:8px;margin:14px 0 0}
.badge{display:inline-block;padding:1px 9px;border-radius:999px;font-size:12px;font-weight:600;white-space:nowrap;border:1px solid transparent}
.s-passed,.s-claimed{color:var(--pass);background:var(--pass-bg)}
.s-failed,.s-not-claimed{color:var(--fail);background:var(--fail-bg)}
.s-not-reached{color:var(--reach);background:var(--reach-bg)}
.s-inconclusive{color:var(--inc);background:var(--inc-bg)}
.s-not-run,.s-not-declared,.s-none{color:var(--skip);background:var(--skip-bg)}
.lvl{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;color:var(--muted);border:1px solid var(--line);border-radius:4px;padding:0 4px;white-space:nowrap}
.id{font-family:ui-monospace,Menlo,Consolas,monospace;font-weight:600;white-space:nowrap}
.id.failed{color:var(--fail)}.id.not-reached{color:var(--reach)}
table{border-collapse:collapse;width:100%;font-size:14px}
table.per-level{width:auto;min-width:50%}
th,td{text-align:left;padding:6px 10px;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--soft);font-size:13px;font-weight:600;position:sticky;top:0;z-index:1}
td.title{min-width:14em}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.row-failed td:first-child{box-shadow:inset 4px 0 var(--fail)}
ul.plain{list-style:none;margin:0;padding:0}
details.failure{border:1px solid var(--fail-line);border-left:6px solid var(--fail);border-radius:8px;margin:14px 0}
details.failure>summary{padding:10px 14px;cursor:pointer;background:var(--fail-bg);border-radius:0 6px 0 0;list-style-position:outside}
details.failure>summary .head{font-weight:650}
details.failure>summary .where{display:block;font-weight:400;color:var(--fg)}
.failure .body{padding:6px 14px 12px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:8px 0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}
pre{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:10px 12px;margin:6px 0 10px;
white-space:pre-wrap;overflow-wrap:anywhere;overflow:auto;max-height:70vh;line-height:1.45}
pre.message{background:var(--fail-bg);border-color:var(--fail-line);max-height:none}
pre.replay{margin:0}
ol.operations{margin:4px 0 10px;padding-left:34px}ol.operations li{margin:2px 0}
ul.notes{margin:4px 0;padding-left:20px}
.attachment-head{font-size:13px;color:var(--muted);margin-top:10px}
details.group{border:1px solid var(--line);border-radius:8px;margin:8px 0;padding:0}
details.group>summary{padding:8px 14px;cursor:pointer;background:var(--soft);border-radius:8px}
details.group[open]>summary{border-radius:8px 8px 0 0;border-bottom:1px solid var(--line)}
details.group>ul{margin:0;padding:8px 14px 10px 34px}
details.group li{margin:4px 0}
.count{display:inline-block;min-width:2.2em;text-align:center;font-weight:650;font-variant-numeric:tabular-nums}
details.more>summary{cursor:pointer;color:#0969da;font-size:13px}
form.filters{position:sticky;top:0;z-index:2;background:#fff;border-bottom:1px solid var(--line);padding:10px 0;margin:16px 0 0;
display:flex;flex-wrap:wrap;gap:8px 18px;align-items:center;font-size:14px}
form.filters select{font:inherit;padding:2px 4px;max-width:26em}
form.filters output{color:var(--muted)}
.matrix td.cell{text-align:center;white-space:nowrap}
.matrix th.impl{text-align:center}
.ok{color:var(--pass);font-weight:600}.bad{color:var(--fail);font-weight:600}
footer{margin-top:40px;color:var(--muted);font-size:13px}
@media (max-width:800px){.levels{grid-template-columns:1fr}main{padding:12px}}
@media print{form.filters{display:none}pre{max-height:none}th{position:static}}
`;

/**
 * The filter script: shows the filter form (hidden without JS, so the page needs none) and hides the elements whose
 * data-level, data-features (newline-separated) or data-status do not match; a [data-group] with nothing left is hidden,
 * and a group's count says how many of its entries are left.
 */
export const FILTER_SCRIPT = `
(function () {
  var form = document.getElementById('filters');
  if (!form) return;
  form.hidden = false;
  var items = Array.prototype.slice.call(document.querySelectorAll('[data-status]'));
  function apply() {
    var level = form.elements.level.value, feature = form.elements.feature.value, status = form.elements.status.value;
    var active = Boolean(level || feature || status), shown = 0;
    items.forEach(function (item) {
      var ok = (!level || item.dataset.level === level) &&
        (!feature || (item.dataset.features || '').split('\\n').indexOf(feature) !== -1) &&
        (!status || item.dataset.status === status);
      item.hidden = !ok;
      if (ok) shown++;
    });
    document.querySelectorAll('[data-group]').forEach(function (group) {
      var left = group.querySelectorAll('[data-status]:not([hidden])').length;
      group.hidden = active && left === 0;
      var count = group.querySelector(':scope > summary > .count');
      if (!count) return;
      if (!count.dataset.total) count.dataset.total = count.textContent;
      count.textContent = active ? left + ' of ' + count.dataset.total : count.dataset.total;
    });
    var all = document.getElementById('all-scenarios');
    if (active && all) all.open = true;
    form.querySelector('output').textContent = active ? shown + ' of ' + items.length + ' entries shown' : '';
  }
  form.addEventListener('change', apply);
  form.addEventListener('reset', function () { setTimeout(apply, 0); });
})();
`;
