"""The Jinja2 template of report.html, with its style sheet and script inline.

Everything the page needs is in the one file: no network, no other file. The script sorts
any table whose head is clicked (numbers by value, the ``data-v`` of a cell), builds the page
list and shows a page's word diffs. A location hash drives it too, so a link (or a test)
can open a page and sort: ``report.html#page=3&a=cetd&b=pab&sort=diff`` (``&view=pages``
shows the page browser alone).
"""

from __future__ import annotations

__all__ = ["TEMPLATE"]

_CSS = r"""
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI","DejaVu Sans",sans-serif;margin:0;
 color:#1b1b1b;background:#fff}
main{max-width:1200px;margin:0 auto;padding:1em 1.5em}
h1{font-size:1.6em}h2{font-size:1.3em;border-bottom:1px solid #ddd;padding-bottom:.2em;
 margin-top:1.6em}h3{font-size:1.1em}
code{background:#f3f3f3;padding:0 .25em;border-radius:3px}
table{border-collapse:collapse;margin:.4em 0 1em;font-size:13px}
th,td{border-bottom:1px solid #e3e3e3;padding:.2em .6em;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.sortable th{cursor:pointer;background:#f6f6f6;user-select:none}
table.sortable th[aria-sort=ascending]::after{content:" \25B2"}
table.sortable th[aria-sort=descending]::after{content:" \25BC"}
img.fig{max-width:100%;min-width:min(100%,520px);height:auto;display:block;margin:.5em 0 1.2em}
.wrap{overflow-x:auto}
#browser{display:grid;grid-template-columns:minmax(340px,46%) 1fr;gap:1em;align-items:start}
#pagelist-box{max-height:80vh;overflow:auto;border:1px solid #ddd}
#pagelist tr.sel{background:#fff3c4}#pagelist tbody tr{cursor:pointer}
#pagelist tbody tr:hover{background:#f0f6ff}
#pagelist{font-size:12px}#pagelist th,#pagelist td{padding:.15em .4em}
#pagelist td.id{max-width:7em;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.controls{margin:.5em 0}.controls label{margin-right:1em}
.method{border:1px solid #ddd;border-radius:4px;margin:0 0 1em;padding:.5em .8em}
.method h4{margin:.1em 0 .4em}
.diff{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12.5px;
 white-space:pre-wrap;word-wrap:break-word;max-height:22em;overflow:auto;background:#fafafa;
 padding:.4em;border:1px solid #eee}
.diff del,.legend del{background:#ffd7d5;color:#82071e;text-decoration:line-through}
.diff ins,.legend ins{background:#ccffd8;color:#055d20;text-decoration:none;border-bottom:1px solid #1a7f37}
.cut{color:#666;font-style:italic}
.err{color:#a40e26}.muted{color:#666}.st-missed{color:#a40e26}.st-invented{color:#8a5a00}
.legend del,.legend ins{padding:0 .3em}
body.pages-only #sections,body.pages-only #provenance-part{display:none}
"""

_JS = r"""
(function(){
"use strict";
function cellValue(td){
  var v=td.getAttribute("data-v");
  if(v!==null&&v!==""){var x=parseFloat(v);if(!isNaN(x))return x;}
  return null;
}
function sortTable(table,col,dir){
  var body=table.tBodies[0];if(!body)return;
  var rows=Array.prototype.slice.call(body.rows);
  rows.sort(function(r1,r2){
    var a=r1.cells[col],b=r2.cells[col];if(!a||!b)return 0;
    var x=cellValue(a),y=cellValue(b);
    if(x===null&&y===null){return dir*a.textContent.localeCompare(b.textContent);}
    if(x===null)return 1;if(y===null)return -1;
    return dir*(x-y);
  });
  rows.forEach(function(r){body.appendChild(r);});
  Array.prototype.forEach.call(table.tHead.rows[0].cells,function(th,i){
    if(i===col)th.setAttribute("aria-sort",dir>0?"ascending":"descending");
    else th.removeAttribute("aria-sort");
  });
}
function makeSortable(table){
  if(!table.tHead)return;
  Array.prototype.forEach.call(table.tHead.rows[0].cells,function(th,i){
    th.addEventListener("click",function(){
      var dir=th.getAttribute("aria-sort")==="ascending"?-1:1;
      sortTable(table,i,dir);
    });
  });
}
window.evalkitSortTable=sortTable;
document.querySelectorAll("table.sortable").forEach(makeSortable);

// gzip-compressed base64 text (the page data, large figures), unpacked here
function unpack(b64){
  if(typeof DecompressionStream==="undefined")return Promise.reject(new Error("this browser cannot unpack gzip (DecompressionStream)"));
  var bin=atob(b64.trim()),bytes=new Uint8Array(bin.length);
  for(var i=0;i<bin.length;i++)bytes[i]=bin.charCodeAt(i);
  var stream=new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).text();
}
document.querySelectorAll("img[data-svg-gz]").forEach(function(img){
  unpack(img.getAttribute("data-svg-gz")).then(function(svg){
    img.src=URL.createObjectURL(new Blob([svg],{type:"image/svg+xml"}));
  },function(err){img.alt=img.alt+" (cannot be shown: "+err.message+")";});
});
var dataEl=document.getElementById("pages-data");
if(!dataEl)return;
function loadData(el){
  if(el.getAttribute("data-encoding")!=="gzip-base64")return Promise.resolve(JSON.parse(el.textContent));
  return unpack(el.textContent).then(JSON.parse);
}
loadData(dataEl).then(browser,function(err){
  document.getElementById("page-detail").textContent="The page browser cannot start: "+err.message;
});
function browser(data){
var pages=data.pages,methods=data.methods;
var selA=document.getElementById("method-a"),selB=document.getElementById("method-b");
methods.forEach(function(m,i){
  selA.add(new Option(m,m,false,i===0));selB.add(new Option(m,m,false,i===1));
});
var list=document.getElementById("pagelist"),detail=document.getElementById("page-detail");
var current=-1;
var shown=data.scores||["shingle_f1"],by=data.by===undefined?"shingle_f1":data.by;
function f1(p,m){var s=p.scores[m];return by&&s&&s[by]!==null&&s[by]!==undefined?s[by]:null;}
function fmt(x){return x===null?"-":x.toFixed(3);}
function td(text,v,cls){var c=document.createElement("td");c.textContent=text;
  if(v!==undefined&&v!==null)c.setAttribute("data-v",String(v));if(cls)c.className=cls;return c;}
function buildList(){
  var a=selA.value,b=selB.value;
  document.getElementById("col-a").textContent=(by||"F1")+" "+a;
  document.getElementById("col-b").textContent=(by||"F1")+" "+b;
  document.getElementById("col-d").textContent=a+" \u2212 "+b;
  var body=list.tBodies[0];body.innerHTML="";
  pages.forEach(function(p,i){
    var tr=document.createElement("tr");tr.setAttribute("data-i",String(i));
    var x=f1(p,a),y=f1(p,b),d=(x===null||y===null)?null:x-y;
    tr.appendChild(td(String(i+1),i+1,"n"));
    // a long page id (a sha256, a uuid) is cut with an ellipsis, whole on hover, so the
    // scores and A - B stay in view
    var id=td(p.page_id,undefined,"id");id.title=p.page_id;
    tr.appendChild(td(p.dataset));tr.appendChild(id);tr.appendChild(td(p.why));
    tr.appendChild(td(fmt(x),x,"n"));tr.appendChild(td(fmt(y),y,"n"));
    tr.appendChild(td(d===null?"-":(d>=0?"+":"")+d.toFixed(3),d,"n"));
    if(i===current)tr.className="sel";
    tr.addEventListener("click",function(){show(i);});
    body.appendChild(tr);
  });
}
function addWords(box,tag,text){
  var el=document.createElement(tag);el.textContent=text+" ";box.appendChild(el);return el;
}
var SHOWN=150;
function cut(box,n,what){var c=document.createElement("span");c.className="cut";
  c.textContent="("+n+" more "+what+" words) ";box.appendChild(c);}
function renderDiff(box,gold,ops,strings){
  var g=0;
  ops.forEach(function(op){
    if(op[0]==="="){box.appendChild(document.createTextNode(gold.slice(g,g+op[1]).join(" ")+" "));g+=op[1];}
    else if(op[0]==="-"){
      var w=gold.slice(g,g+op[1]);
      if(w.length>SHOWN){addWords(box,"del",w.slice(0,SHOWN/2).join(" ")+" \u2026 "+w.slice(-SHOWN/2).join(" "));cut(box,w.length-SHOWN,"missed");}
      else addWords(box,"del",w.join(" "));
      g+=op[1];}
    else if(op[0]==="+"){addWords(box,"ins",strings[op[1]]);if(op[2])cut(box,op[2],"added");}
  });
}
function show(i){
  current=i;var p=pages[i];
  Array.prototype.forEach.call(list.tBodies[0].rows,function(r){
    r.className=(r.getAttribute("data-i")===String(i))?"sel":"";});
  detail.innerHTML="";
  var h=document.createElement("h3");h.textContent=p.dataset+" / "+p.page_id+" ("+p.why+")";
  detail.appendChild(h);
  var gold=p.gold===null?null:(p.gold===""?[]:p.gold.split(" "));
  if(gold===null){var n=document.createElement("p");n.className="muted";
    n.textContent="No kept extractions for this page (extractions.jsonl.gz): scores only.";detail.appendChild(n);}
  else{var gw=document.createElement("p");gw.className="muted";gw.textContent="Gold: "+gold.length+" words.";detail.appendChild(gw);}
  methods.forEach(function(m){
    var box=document.createElement("div");box.className="method";box.setAttribute("data-method",m);
    var h4=document.createElement("h4");var s=p.scores[m]||{};
    var parts=[];shown.forEach(function(k){
      if(s[k]!==undefined&&s[k]!==null)parts.push(k+" "+s[k].toFixed(3));});
    h4.textContent=m+(parts.length?": "+parts.join(", "):"");box.appendChild(h4);
    if(s.error){var e=document.createElement("p");e.className="err";e.textContent="Error: "+s.error;box.appendChild(e);}
    var entry=p.methods[m];
    if(!entry){var q=document.createElement("p");q.className="muted";q.textContent="No record of this method on this page.";box.appendChild(q);}
    else if(entry.missing){var q2=document.createElement("p");q2.className="muted";q2.textContent="Extraction not kept: "+entry.missing;box.appendChild(q2);}
    else if(gold!==null){
      var d=document.createElement("div");d.className="diff";renderDiff(d,gold,entry.diff,p.strings);box.appendChild(d);
      if(entry.removed){
        var det=document.createElement("details");var sum=document.createElement("summary");
        sum.textContent="Removed blocks: "+(entry.removed.length+entry.removed_more)+" (stage, rule, reason, what the method recorded)";
        det.appendChild(sum);var t=document.createElement("table");t.className="sortable blocks";
        var th=t.createTHead().insertRow();["block","stage","rule","reason","recorded","words","text"].forEach(function(x){
          var c=document.createElement("th");c.textContent=x;th.appendChild(c);});
        var tb=t.createTBody();
        entry.removed.forEach(function(b){var r=tb.insertRow();
          b.forEach(function(v,k){r.appendChild(td(v===null?"-":String(v),(k===0||k===5)?v:null,(k===0||k===5)?"n":null));});});
        det.appendChild(t);makeSortable(t);
        if(entry.removed_more){var more=document.createElement("p");more.className="muted";
          more.textContent=entry.removed_more+" more removed blocks not listed.";det.appendChild(more);}
        box.appendChild(det);
      }
      if(entry.structure){
        var miss=entry.structure.filter(function(r){return r[1]==="missed";}).length;
        var inv=entry.structure.filter(function(r){return r[1]==="invented";}).length;
        var sdet=document.createElement("details");var ssum=document.createElement("summary");
        ssum.textContent="Structure: "+miss+" missed, "+inv+" invented of the gold's headings, list items, code blocks and table rows (the method's Markdown)";
        sdet.appendChild(ssum);var st=document.createElement("table");st.className="sortable structure";
        var sh=st.createTHead().insertRow();["element","status","text"].forEach(function(x){
          var c=document.createElement("th");c.textContent=x;sh.appendChild(c);});
        var sb=st.createTBody();
        entry.structure.forEach(function(row){var r=sb.insertRow();
          row.forEach(function(v,k){var c=td(String(v));if(k===1)c.className="st-"+v;r.appendChild(c);});});
        sdet.appendChild(st);makeSortable(st);
        if(entry.structure_more){var smore=document.createElement("p");smore.className="muted";
          smore.textContent=entry.structure_more+" more rows not listed.";sdet.appendChild(smore);}
        box.appendChild(sdet);
      }
    }
    detail.appendChild(box);
  });
}
function colOf(name){return {"n":0,"dataset":1,"page":2,"why":3,"a":4,"b":5,"diff":6}[name];}
selA.addEventListener("change",buildList);selB.addEventListener("change",buildList);
buildList();  // the list's head sorts already: it is a table.sortable
// the location hash: #page=3&a=cetd&b=pab&sort=diff (page numbers as listed, from 1)
var args={};location.hash.replace(/^#/,"").split("&").forEach(function(kv){
  var i=kv.indexOf("=");if(i>0)args[decodeURIComponent(kv.slice(0,i))]=decodeURIComponent(kv.slice(i+1));});
if(args.a&&methods.indexOf(args.a)>=0)selA.value=args.a;
if(args.b&&methods.indexOf(args.b)>=0)selB.value=args.b;
if(args.a||args.b)buildList();
if(args.sort&&colOf(args.sort)!==undefined){list.tHead.rows[0].cells[colOf(args.sort)].click();}
if(args.view==="pages")document.body.className="pages-only";
if(args.page){var k=parseInt(args.page,10)-1;if(k>=0&&k<pages.length){show(k);}}
else if(pages.length){show(0);}
document.body.setAttribute("data-browser","ready");
}
})();
"""

TEMPLATE = (
    r"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }}</title>
<style>"""
    + _CSS
    + r"""</style></head>
<body><main>
<div id="sections">
{{ body }}
</div>
{% if provenance %}<section id="provenance-part">
<h2 id="provenance">Provenance</h2>
<table class="sortable"><thead><tr><th>field</th><th>value</th></tr></thead><tbody>
{% for key, value in provenance %}<tr><td>{{ key }}</td><td><code>{{ value }}</code></td></tr>
{% endfor %}</tbody></table>
{% if run_json %}<details><summary>run.json</summary><pre>{{ run_json }}</pre></details>{% endif %}
</section>{% endif %}
{% if pages_json %}<section id="pages-part">
<h2 id="pages">Page browser</h2>
<p>{{ pages_note }}</p>
<p class="legend">Each method's text against the gold, word by word: <del>gold words it
missed</del> <ins>words it added</ins>; unchanged words plain. Click a page; click a column
head to sort (<b>{{ "A \u2212 B" }}</b>: where method A loses to method B, lowest first).</p>
<div class="controls"><label>method A <select id="method-a"></select></label>
<label>method B <select id="method-b"></select></label></div>
<div id="browser"><div id="pagelist-box">
<table id="pagelist" class="sortable"><thead><tr><th>#</th><th>data set</th><th>page</th>
<th>shown as</th><th id="col-a">F1 A</th><th id="col-b">F1 B</th><th id="col-d">A − B</th>
</tr></thead><tbody></tbody></table></div>
<div id="page-detail"></div></div>
<script type="application/octet-stream" id="pages-data" data-encoding="gzip-base64">{{ pages_json }}</script>
</section>{% endif %}
</main>
<script>"""
    + _JS
    + r"""</script>
</body></html>
"""
)
