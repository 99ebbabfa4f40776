/**
 * The stylesheet of report.html, inlined into the page (the report is one file that opens
 * offline: no fonts, images or scripts from anywhere). System fonts only; colours keep their
 * meaning across the page: red = fail/lost/killed, amber = unknown/refused, green = pass/row
 * stored, blue = post.
 */
export const REPORT_CSS = `
:root {
  --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --panel: #f6f8fa; --bg: #ffffff;
  --fail: #cf222e; --fail-bg: #ffebe9; --pass: #1a7f37; --pass-bg: #dafbe1;
  --unknown: #9a6700; --unknown-bg: #fff8c5; --skipped: #59636e; --skipped-bg: #eaeef2;
  --post: #0969da; --update: #57606a; --row: #1a7f37; --shed: #bc4c00; --order: #bf3989; --unexp: #8250df;
  --mono: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
}
* { box-sizing: border-box; }
html { scroll-behavior: smooth; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 1400px; margin: 0 auto; padding: 0 24px 48px; }
h1, h2, h3, h4 { line-height: 1.25; margin: 0; }
h2 { font-size: 20px; }
h3 { font-size: 16px; margin: 20px 0 8px; }
h4 { font-size: 13px; margin: 10px 0 4px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
a { color: #0969da; }
code, pre, .mono { font-family: var(--mono); font-size: 12.5px; }
pre { margin: 0; white-space: pre-wrap; word-break: break-all; }
[id] { scroll-margin-top: 16px; }
:target { outline: 3px solid #d4a72c; outline-offset: 2px; background-color: #fff8c5 !important; }
.muted { color: var(--muted); }
.nowrap { white-space: nowrap; }

/* header */
header.page { border-bottom: 1px solid var(--line); margin: 0 -24px 20px; padding: 20px 24px 16px; }
header.page.v-fail { background: linear-gradient(90deg, var(--fail-bg), var(--bg) 60%); border-top: 6px solid var(--fail); }
header.page.v-pass { background: linear-gradient(90deg, var(--pass-bg), var(--bg) 60%); border-top: 6px solid var(--pass); }
header.page.v-unknown { background: linear-gradient(90deg, var(--unknown-bg), var(--bg) 60%); border-top: 6px solid var(--unknown); }
.title-row { display: flex; align-items: center; gap: 14px; flex-wrap: wrap; }
.title-row h1 { font-size: 22px; }
.verdict-big { font-size: 18px; font-weight: 700; padding: 4px 14px; border-radius: 6px; color: #fff; letter-spacing: .06em; }
.verdict-big.v-fail { background: var(--fail); } .verdict-big.v-pass { background: var(--pass); } .verdict-big.v-unknown { background: var(--unknown); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 12px 0 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; }
.summary-line { margin-top: 10px; font-size: 15px; }

/* badges */
.badge { display: inline-block; font-size: 11.5px; font-weight: 700; padding: 0 7px; border-radius: 10px; line-height: 18px; text-transform: uppercase; letter-spacing: .03em; white-space: nowrap; border: 1px solid transparent; }
.b-fail, .b-lost, .b-killed, .b-duplicated { background: var(--fail); color: #fff; }
.b-pass, .b-success { background: var(--pass-bg); color: var(--pass); border-color: #aceebb; }
.b-unknown, .b-refused, .b-refused-run { background: var(--unknown-bg); color: var(--unknown); border-color: #eed888; }
.b-skipped { background: var(--skipped-bg); color: var(--skipped); }
.b-retry, .b-failure, .b-running { background: #fff1e5; color: var(--shed); border-color: #ffd8b5; }
.b-out-of-order { background: var(--order); color: #fff; }
.b-unexpected { background: var(--unexp); color: #fff; }
.b-recovered, .b-os-shed, .b-tolerated, .b-other { background: var(--skipped-bg); color: var(--fg); }

/* findings */
section.findings { border: 2px solid var(--fail); border-radius: 8px; padding: 12px 16px; margin: 0 0 20px; background: #fffafa; }
section.findings.f-unknown { border-color: var(--unknown); background: #fffdf0; }
section.findings h2 { font-size: 17px; margin-bottom: 6px; }
section.findings ul { margin: 0; padding-left: 18px; }
section.findings li { margin: 3px 0; }

/* tables */
table.grid { border-collapse: collapse; width: 100%; margin: 8px 0 20px; }
table.grid th, table.grid td { border-bottom: 1px solid var(--line); padding: 6px 10px; text-align: left; vertical-align: top; }
table.grid th { background: var(--panel); font-size: 12.5px; color: var(--muted); font-weight: 600; }
table.grid td.num, table.grid th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.grid td.bad { color: var(--fail); font-weight: 700; }
table.grid tr.row-fail td:first-child { box-shadow: inset 4px 0 0 var(--fail); }
table.grid tr.row-unknown td:first-child { box-shadow: inset 4px 0 0 var(--unknown); }

/* scenario sections */
section.scenario { border: 1px solid var(--line); border-radius: 8px; margin: 24px 0; overflow: hidden; }
section.scenario > .s-head { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; padding: 10px 16px; background: var(--panel); border-bottom: 1px solid var(--line); }
section.scenario.v-fail > .s-head { background: var(--fail-bg); }
section.scenario.v-unknown > .s-head { background: var(--unknown-bg); }
section.scenario > .s-body { padding: 4px 16px 16px; }
.entry + .entry { border-top: 1px dashed var(--line); margin-top: 16px; }
.error-box { border-left: 4px solid var(--unknown); background: var(--unknown-bg); padding: 6px 10px; margin: 10px 0; }

/* timeline */
.tl-tools { display: flex; gap: 16px; align-items: center; flex-wrap: wrap; margin: 6px 0; font-size: 13px; }
.tl-wrap { display: inline-block; max-width: 100%; vertical-align: top; overflow-x: auto; border: 1px solid var(--line); border-radius: 6px; max-height: 75vh; overflow-y: auto; }
table.timeline { border-collapse: separate; border-spacing: 0; font-size: 12px; }
table.timeline th, table.timeline td { border-right: 1px solid #eaeef2; border-bottom: 1px solid #eaeef2; padding: 3px 6px; vertical-align: middle; text-align: center; }
table.timeline thead th { position: sticky; top: 0; z-index: 2; background: var(--panel); font-weight: 600; min-width: 76px; }
table.timeline th.lane-h { position: sticky; left: 0; z-index: 3; text-align: left; background: var(--panel); min-width: 200px; max-width: 320px; }
table.timeline tbody th { position: sticky; left: 0; z-index: 1; background: var(--bg); text-align: left; font-weight: 400; max-width: 320px; }
table.timeline tr.sys th { color: var(--muted); font-size: 11.5px; text-transform: uppercase; letter-spacing: .03em; background: var(--panel); }
table.timeline tr.sys td { background: #fbfcfd; color: var(--muted); white-space: nowrap; }
table.timeline tr.sys:last-of-type td, table.timeline tr.sys:last-of-type th { border-bottom: 2px solid var(--line); }
table.timeline .col.gap { background: #f3f4f6; min-width: 56px; font-weight: 400; color: var(--muted); }
table.timeline td.gap { background: #f7f8fa; }
table.timeline .col.o-killed, table.timeline td.o-killed { background: repeating-linear-gradient(135deg, #ffe1de 0 6px, #fff5f4 6px 12px); }
table.timeline thead .col.o-killed { background: var(--fail); color: #fff; }
table.timeline thead .col.o-killed a { color: #fff; }
table.timeline .col.o-refused, table.timeline td.o-refused { background: repeating-linear-gradient(135deg, #fff3c4 0 6px, #fffbea 6px 12px); }
table.timeline thead .col.o-refused { background: var(--unknown); color: #fff; }
table.timeline thead .col.o-refused a { color: #fff; }
table.timeline thead .col.o-retry, table.timeline thead .col.o-failure { background: #fff1e5; }
table.timeline th.omitted, table.timeline td.omitted { background: repeating-linear-gradient(90deg, #eaeef2 0 2px, #fff 2px 6px); color: var(--muted); font-style: italic; min-width: 64px; }
.col .oc { display: block; font-size: 10.5px; text-transform: uppercase; letter-spacing: .05em; }
.jump.big { color: var(--fg); font-weight: 700; }
.seq { font-size: 9.5px; color: var(--muted); vertical-align: super; margin-left: -1px; }
.col .kill-how { display: block; font-size: 10.5px; font-weight: 400; }
tr.lane.anomalous th { box-shadow: inset 4px 0 0 var(--fail); }
tr.lane.k-lost td, tr.lane.k-lost th { background-color: #fff5f5; }
.lane-name { font-family: var(--mono); font-size: 12px; }
.lane-title { display: block; color: var(--muted); font-size: 11px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; max-width: 300px; }
.mk { display: inline-block; min-width: 18px; height: 18px; line-height: 16px; margin: 1px; padding: 0 3px; border-radius: 9px; font-size: 11px; font-weight: 700; text-decoration: none; border: 1px solid transparent; vertical-align: middle; }
.mk.served { min-width: 8px; width: 8px; height: 8px; padding: 0; border-radius: 50%; background: #afb8c1; }
.mk.post { background: var(--post); color: #fff; }
.mk.update { background: #fff; color: var(--update); border-color: var(--update); }
.mk.stored { background: var(--pass-bg); color: var(--row); border-color: var(--row); border-radius: 3px; }
.mk.published, .mk.edited { background: #ddf4ff; color: #0550ae; border-color: #54aeff; border-radius: 3px; }
.mk.forgotten { background: #eaeef2; color: var(--fg); border-color: #8c959f; border-radius: 3px; }
.mk.shed { background: #fff1e5; color: var(--shed); border-color: var(--shed); }
.mk.lost { background: #fff; color: var(--fail); border: 2px dashed var(--fail); border-radius: 4px; padding: 0 5px; line-height: 14px; }
.mk.a-duplicated { background: var(--fail); color: #fff; box-shadow: 0 0 0 2px #ffb1ab; }
.mk.a-out-of-order { background: var(--order); color: #fff; box-shadow: 0 0 0 2px #ffadda; }
.mk.a-unexpected { background: var(--unexp); color: #fff; box-shadow: 0 0 0 2px #d8b9ff; }
.mk.a-os-shed { box-shadow: 0 0 0 2px #ffd8b5; }
.mk.a-tolerated { box-shadow: 0 0 0 2px #eed888; }
.mk.a-other { box-shadow: 0 0 0 2px var(--fail); }
a.mk:hover { filter: brightness(1.1); text-decoration: underline; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12px; color: var(--muted); margin: 6px 0 2px; align-items: center; }
.caps-note { font-size: 12.5px; color: var(--unknown); margin: 4px 0; }
.only-anomalous:has(input:checked) tr.lane:not(.anomalous) { display: none; }

/* anomalies */
ol.anomalies { list-style: none; padding: 0; margin: 0; }
ol.anomalies > li { border: 1px solid var(--line); border-left: 5px solid var(--muted); border-radius: 6px; padding: 8px 12px; margin: 10px 0; background: var(--bg); }
ol.anomalies > li.k-lost, ol.anomalies > li.k-duplicated { border-left-color: var(--fail); }
ol.anomalies > li.k-out-of-order { border-left-color: var(--order); }
ol.anomalies > li.k-unexpected { border-left-color: var(--unexp); }
ol.anomalies > li.k-refused-run { border-left-color: var(--unknown); }
ol.anomalies > li.informational { opacity: .9; border-left-color: #8c959f; }
.a-head { display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; }
.a-item { font-family: var(--mono); font-size: 13px; font-weight: 600; word-break: break-all; }
.a-detail { margin: 4px 0; }
.story { margin: 4px 0 0; padding-left: 18px; }
.reading { margin: 6px 0 0; padding: 6px 10px; background: #fff8c5; border-radius: 4px; }
.story li { margin: 1px 0; }
.evidence { background: #0d1117; color: #e6edf3; border-radius: 6px; padding: 8px 10px; margin-top: 6px; }
.evidence h4 { color: #9198a1; margin: 0 0 4px; }
.evidence pre + pre { margin-top: 2px; }
.evidence .src { color: #9198a1; }
.a-links { font-size: 12.5px; margin-top: 6px; display: flex; gap: 14px; flex-wrap: wrap; }

/* runs */
ol.runs { list-style: none; padding: 0; margin: 0; font-size: 13px; }
ol.runs > li { padding: 4px 8px; border-bottom: 1px solid #eaeef2; }
ol.runs > li.o-killed { background: var(--fail-bg); border-left: 4px solid var(--fail); }
ol.runs > li.o-refused { background: var(--unknown-bg); border-left: 4px solid var(--unknown); }
ol.runs details summary { cursor: pointer; color: var(--muted); font-size: 12px; }
ol.runs pre { background: var(--panel); padding: 4px 8px; border-radius: 4px; margin-top: 4px; }
ul.notes { margin: 0; padding-left: 18px; }
ul.notes li { margin: 2px 0; }
details.glossary { margin-top: 28px; color: var(--muted); }
details.glossary dt { font-weight: 700; color: var(--fg); }
details.glossary dd { margin: 0 0 6px 0; }
footer { margin-top: 24px; font-size: 12px; color: var(--muted); }
@media print { .tl-wrap { max-height: none; overflow: visible; } .tl-tools { display: none; } }
`;
