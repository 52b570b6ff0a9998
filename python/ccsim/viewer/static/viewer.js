// ccsim's interactive figures: renders the figure specs embedded in a page as
// <script type="application/json" class="ccsim-figure"> blocks (see ccsim/viewer/__init__.py
// for the spec) with uPlot (vendored beside this file), and topologies as SVG.
// Drag to zoom, double-click to reset, hover for values, click a legend entry to hide its
// series. Charts of one `group` share their cursor and their x zoom.
(function () {
  "use strict";
  var COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  var charts = [];        // every uPlot made, for tests and for resizing
  var groups = {};        // group key -> charts whose x zoom is linked

  function axisLabel(a) {
    if (!a) return "";
    return a.unit ? a.label + " (" + a.unit + ")" : a.label || "";
  }

  function fmt(v) {
    if (v == null || isNaN(v)) return "–";
    var a = Math.abs(v);
    if (a !== 0 && (a >= 1e6 || a < 1e-3)) return v.toExponential(3);
    return +v.toPrecision(5) + "";
  }

  // uPlot needs one x array shared by every series: the sorted union of the series' x,
  // with null where a series has no point.
  function align(series) {
    var xs = [], seen = new Map();
    series.forEach(function (s) {
      s.x.forEach(function (x) {
        if (!seen.has(x)) { seen.set(x, true); xs.push(x); }
      });
    });
    xs.sort(function (a, b) { return a - b; });
    var index = new Map(xs.map(function (x, i) { return [x, i]; }));
    function column(s, key) {
      var out = new Array(xs.length).fill(null);
      if (!s[key]) return null;
      s.x.forEach(function (x, i) { var v = s[key][i]; out[index.get(x)] = v == null ? null : v; });
      return out;
    }
    return {
      x: xs,
      y: series.map(function (s) { return column(s, "y"); }),
      lo: series.map(function (s) { return column(s, "lo"); }),
      hi: series.map(function (s) { return column(s, "hi"); }),
    };
  }

  // The individual runs of each point: small dots in the series' colour.
  function runDots(spec) {
    return function (u) {
      var ctx = u.ctx;
      ctx.save();
      spec.series.forEach(function (s, i) {
        if (!s.runs || !u.series[i + 1].show) return;
        ctx.fillStyle = u.series[i + 1]._stroke || COLORS[i % COLORS.length];
        ctx.globalAlpha = 0.4;
        var r = 2.5 * devicePixelRatio;
        s.runs.forEach(function (vals, j) {
          var cx = u.valToPos(s.x[j], "x", true);
          vals.forEach(function (v) {
            ctx.beginPath();
            ctx.arc(cx, u.valToPos(v, "y", true), r, 0, 2 * Math.PI);
            ctx.fill();
          });
        });
      });
      ctx.restore();
    };
  }

  function errorBars(aligned) {
    return function (u) {
      var ctx = u.ctx;
      ctx.save();
      for (var si = 1; si < u.series.length; si++) {
        var lo = aligned.lo[si - 1], hi = aligned.hi[si - 1];
        if (!lo || !hi || !u.series[si].show) continue;
        ctx.strokeStyle = u.series[si]._stroke || COLORS[(si - 1) % COLORS.length];
        ctx.lineWidth = Math.max(1, devicePixelRatio);
        for (var i = 0; i < aligned.x.length; i++) {
          if (lo[i] == null || hi[i] == null) continue;
          var cx = u.valToPos(aligned.x[i], "x", true);
          var y0 = u.valToPos(lo[i], "y", true), y1 = u.valToPos(hi[i], "y", true);
          var cap = 4 * devicePixelRatio;
          ctx.beginPath();
          ctx.moveTo(cx, y0); ctx.lineTo(cx, y1);
          ctx.moveTo(cx - cap, y0); ctx.lineTo(cx + cap, y0);
          ctx.moveTo(cx - cap, y1); ctx.lineTo(cx + cap, y1);
          ctx.stroke();
        }
      }
      ctx.restore();
    };
  }

  // The x range: every category with half a step to spare, and for a chart with marked
  // points, room so that the first and last are not cut in half at the edges (a single
  // x value gets a range of its own around it). Only the whole data range is widened: a
  // zoom, or a linked chart's range, is kept as it is.
  function xRange(spec, names, xs) {
    var marked = spec.series.some(function (s) { return s.style !== "line" || s.x.length <= 60; });
    var first = xs.length ? xs[0] : null, last = xs.length ? xs[xs.length - 1] : null;
    return function (u, min, max) {
      if (names) return min === first && max === last ? [-0.5, Math.max(names.length, 1) - 0.5] : [min, max];
      if (min !== first || max !== last || min == null || (spec.x && spec.x.log)) return [min, max];
      if (min === max) {
        var d = Math.abs(min) > 0 ? Math.abs(min) * 0.1 : 1;
        return [min - d, max + d];
      }
      if (!marked) return [min, max];
      var pad = (max - min) * 0.04;
      return [min - pad, max + pad];
    };
  }

  function linkZoom(group, chart) {
    if (!group) return;
    (groups[group] = groups[group] || []).push(chart);
  }

  function onScale(group) {
    return function (u, key) {
      if (key !== "x" || !group || u._syncing) return;
      var min = u.scales.x.min, max = u.scales.x.max;
      (groups[group] || []).forEach(function (o) {
        if (o === u || (o.scales.x.min === min && o.scales.x.max === max)) return;
        o._syncing = true;
        o.setScale("x", { min: min, max: max });
        o._syncing = false;
      });
    };
  }

  function xyChart(spec, el) {
    var aligned = align(spec.series);
    var hasBars = aligned.lo.some(function (c) { return c; });
    var names = spec.x && spec.x.categories;
    var series = [{ label: axisLabel(spec.x), value: function (u, v) { return names && v != null ? (names[v] != null ? names[v] : "–") : fmt(v); } }];
    spec.series.forEach(function (s, i) {
      var color = s.color || COLORS[i % COLORS.length];
      var paper = s.style === "paper", points = paper || s.style === "points";
      var one = {
        label: s.name,
        stroke: paper ? "#000" : color,
        width: points ? 0 : 1.5,
        spanGaps: true,
        value: function (u, v) { return fmt(v); },
        points: paper
          ? { show: true, size: 11, width: 2, stroke: "#000", fill: "#fff" }
          : { show: points || spec.series[i].x.length <= 60, size: points ? 8 : 5, fill: color, stroke: color },
      };
      if (points) one.paths = function () { return null; };
      series.push(one);
    });
    var width = Math.max(320, (el.clientWidth || 800) - 8);
    var xAxis = { label: axisLabel(spec.x) };
    if (names) {
      // Categories: a tick at each whole number, labelled with its name.
      xAxis.splits = function () { return names.map(function (_, i) { return i; }); };
      xAxis.values = function (u, splits) { return splits.map(function (i) { return names[i] != null ? names[i] : ""; }); };
    }
    var opts = {
      title: spec.title || "",
      width: width,
      height: spec.height || 300,
      scales: {
        x: { time: false, distr: spec.x && spec.x.log ? 3 : 1, range: xRange(spec, names, aligned.x) },
        y: { distr: spec.y && spec.y.log ? 3 : 1 },
      },
      axes: [xAxis, { label: axisLabel(spec.y), size: 70 }],
      series: series,
      cursor: spec.group ? { sync: { key: spec.group, setSeries: false } } : {},
      legend: { show: true, live: true },
      hooks: { setScale: [onScale(spec.group)], draw: [] },
    };
    var hasRuns = spec.series.some(function (s) { return s.runs; });
    if (hasRuns) opts.hooks.draw.push(runDots(spec));
    if (hasBars) opts.hooks.draw.push(errorBars(aligned));
    if (hasBars || hasRuns) {
      // Room for the bars and the runs in the y range.
      opts.scales.y.range = function (u, min, max) {
        var lo = min, hi = max;
        function widen(v) { if (v != null) { if (v < lo) lo = v; if (v > hi) hi = v; } }
        aligned.lo.forEach(function (c) { if (c) c.forEach(widen); });
        aligned.hi.forEach(function (c) { if (c) c.forEach(widen); });
        spec.series.forEach(function (s) { if (s.runs) s.runs.forEach(function (vals) { vals.forEach(widen); }); });
        return uPlot.rangeNum(lo, hi, 0.1, true);
      };
    }
    var u = new uPlot(opts, [aligned.x].concat(aligned.y), el);
    u.ccsimSpec = spec;
    linkZoom(spec.group, u);
    charts.push(u);
    return u;
  }

  // ---- topology ----

  function columns(spec) {
    // Breadth-first distance from the flows' senders (or from the hosts), so that a
    // dumbbell reads left to right: senders, routers, receivers.
    var adj = {};
    spec.nodes.forEach(function (n) { adj[n.name] = []; });
    spec.links.forEach(function (l) { adj[l.a].push(l.b); adj[l.b].push(l.a); });
    var start = (spec.sources && spec.sources.length) ? spec.sources : spec.nodes.filter(function (n) { return n.kind === "host"; }).map(function (n) { return n.name; });
    if (!start.length && spec.nodes.length) start = [spec.nodes[0].name];
    var depth = {}, queue = [];
    start.forEach(function (s) { if (depth[s] == null) { depth[s] = 0; queue.push(s); } });
    while (queue.length) {
      var a = queue.shift();
      adj[a].forEach(function (b) { if (depth[b] == null) { depth[b] = depth[a] + 1; queue.push(b); } });
    }
    var max = 0;
    Object.keys(depth).forEach(function (k) { max = Math.max(max, depth[k]); });
    spec.nodes.forEach(function (n) { if (depth[n.name] == null) depth[n.name] = max + 1; });
    return depth;
  }

  function svgEl(tag, attrs, text) {
    var e = document.createElementNS("http://www.w3.org/2000/svg", tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text != null) e.textContent = text;
    return e;
  }

  function topology(spec, el) {
    var depth = columns(spec);
    var cols = {};
    spec.nodes.forEach(function (n) { (cols[depth[n.name]] = cols[depth[n.name]] || []).push(n); });
    var keys = Object.keys(cols).map(Number).sort(function (a, b) { return a - b; });
    var rows = Math.max.apply(null, keys.map(function (k) { return cols[k].length; }));
    var colW = 230, rowH = 34, padX = 60, padY = 40, lineH = 16;
    // The bottleneck queues are listed under the drawing, one line each, rather than beside
    // their links, where they would cross the nodes of a dense network.
    var necks = spec.links.filter(function (l) { return l.bottleneck && l.queue; });
    var netH = padY * 2 + rowH * Math.max(1, rows - 1);
    var longest = Math.max.apply(null, [0].concat(necks.map(function (l) { return l.queue.length; })));
    var W = Math.max(padX * 2 + colW * Math.max(1, keys.length - 1), padX + 7 * (longest + 20)), H = netH + 14 + lineH * necks.length;
    var pos = {};
    keys.forEach(function (k, ci) {
      var list = cols[k], offset = (rows - list.length) * rowH / 2;
      list.forEach(function (n, ri) { pos[n.name] = { x: padX + ci * colW, y: padY + offset + ri * rowH }; });
    });
    var svg = svgEl("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, "class": "ccsim-topology", role: "img" });
    svg.appendChild(svgEl("title", {}, spec.title || "topology"));
    var labelled = {};
    spec.links.forEach(function (l) {
      var p = pos[l.a], q = pos[l.b];
      var g = svgEl("g", { "class": "link" + (l.bottleneck ? " bottleneck" : ""), "data-link": l.a + "--" + l.b });
      g.appendChild(svgEl("line", { x1: p.x, y1: p.y, x2: q.x, y2: q.y }));
      g.appendChild(svgEl("title", {}, l.a + " – " + l.b + ": " + l.label + (l.queue ? "\n" + l.queue : "")));
      // One label per bundle of parallel links with the same rate and delay; none on a
      // link within a column, whose middle may be another node (its title still tells).
      var key = depth[l.a] + ":" + depth[l.b] + ":" + l.label;
      if (depth[l.a] !== depth[l.b] && (l.bottleneck || !labelled[key])) {
        labelled[key] = true;
        var mx = (p.x + q.x) / 2, my = (p.y + q.y) / 2 - 6;
        g.appendChild(svgEl("text", { x: mx, y: my, "class": "link-label" }, l.label));
      }
      svg.appendChild(g);
    });
    necks.forEach(function (l, i) {
      svg.appendChild(svgEl("text", { x: padX - 20, y: netH + lineH * (i + 1), "class": "queue-label", "text-anchor": "start" }, "bottleneck queue " + l.queue));
    });
    spec.nodes.forEach(function (n) {
      var p = pos[n.name];
      var g = svgEl("g", { "class": "node " + n.kind, "data-node": n.name });
      if (n.kind === "router") g.appendChild(svgEl("rect", { x: p.x - 9, y: p.y - 9, width: 18, height: 18 }));
      else g.appendChild(svgEl("circle", { cx: p.x, cy: p.y, r: 7 }));
      g.appendChild(svgEl("text", { x: p.x, y: p.y - 12, "class": "node-label" }, n.name));
      g.appendChild(svgEl("title", {}, n.name + " (" + n.kind + (n.address ? ", " + n.address : "") + ")"));
      svg.appendChild(g);
    });
    el.appendChild(svg);
    return svg;
  }

  // ---- run chooser: a select that shows one run's linked panels at a time ----

  function chooser(spec, el) {
    var select = document.createElement("select");
    select.className = "ccsim-run-choice";
    spec.runs.forEach(function (r, i) {
      var o = document.createElement("option");
      o.value = i; o.textContent = r.label;
      select.appendChild(o);
    });
    var box = document.createElement("div");
    el.appendChild(select);
    el.appendChild(box);
    function show(i) {
      // Drop the charts of the run shown before.
      charts = charts.filter(function (c) {
        if (box.contains(c.root)) { c.destroy(); return false; }
        return true;
      });
      Object.keys(groups).forEach(function (g) { groups[g] = groups[g].filter(function (c) { return charts.indexOf(c) >= 0; }); });
      box.innerHTML = "";
      spec.runs[i].figures.forEach(function (f) {
        var div = document.createElement("div");
        div.className = "ccsim-chart";
        box.appendChild(div);
        xyChart(f, div);
      });
    }
    select.addEventListener("change", function () { show(+select.value); });
    show(0);
  }

  function render(script) {
    var spec = JSON.parse(script.textContent);
    var el = document.createElement("div");
    el.className = "ccsim-figure-view ccsim-" + spec.kind;
    el.id = spec.id ? "view-" + spec.id : "";
    script.parentNode.insertBefore(el, script.nextSibling);
    try {
      if (spec.kind === "topology") topology(spec, el);
      else if (spec.kind === "runs") chooser(spec, el);
      else xyChart(spec, el);
    } catch (e) {
      el.textContent = "this figure could not be drawn: " + e;
      throw e;
    }
  }

  function renderAll() {
    var scripts = document.querySelectorAll('script.ccsim-figure[type="application/json"]');
    for (var i = 0; i < scripts.length; i++) render(scripts[i]);
    window.ccsimRendered = scripts.length;
  }

  window.ccsimCharts = function () { return charts; };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", renderAll);
  else renderAll();
})();
