// The console's own script: draws the charts and graphs whose data the server put in the page
// (<script type="application/json">), and keeps the event list live. No data is fetched from elsewhere.
(function () {
  "use strict";
  var drawn = (window.grimoireDrawn = {});  // per chart: how many data points it drew (the browser tests read it)

  function data(el) {
    var src = document.getElementById(el.dataset.source);
    return src ? JSON.parse(src.textContent) : null;
  }
  function mark(el, key, points) {
    drawn[key] = points;
    el.dataset.drawn = String(points);
  }
  var RED = "#c0392b", BLUE = "#2c6fbb", GREEN = "rgba(46, 160, 67, 0.14)";

  // A metric's daily series: the healthy range shaded, the days outside it as red points.
  function series(el) {
    var c = data(el);
    if (!c || !window.uPlot) return;
    var bad = c.y.map(function (v, i) { return c.unhealthy[i] ? v : null; });
    var band = {
      hooks: {
        drawClear: [function (u) {
          if (c.low === null && c.high === null) return;
          var ctx = u.ctx, s = u.scales.y;
          var top = u.valToPos(c.high === null ? s.max : c.high, "y", true);
          var bottom = u.valToPos(c.low === null ? s.min : c.low, "y", true);
          ctx.save();
          ctx.fillStyle = GREEN;
          ctx.fillRect(u.bbox.left, Math.min(top, bottom), u.bbox.width, Math.abs(bottom - top));
          ctx.restore();
        }]
      }
    };
    var ys = c.y.filter(function (v) { return v !== null; }).concat([c.low, c.high].filter(function (v) { return v !== null; }));
    var lo = ys.length ? Math.min.apply(null, ys) : 0, hi = ys.length ? Math.max.apply(null, ys) : 1;
    var pad = (hi - lo) * 0.1 || 0.1;
    new uPlot({
      width: Math.max(260, el.clientWidth), height: 150, plugins: [band], legend: { show: false },
      scales: { x: { time: true }, y: { range: [lo - pad, hi + pad] } },
      series: [{}, { label: c.title, stroke: BLUE, width: 2, spanGaps: false, points: { show: true, size: 5 } },
               { label: "unhealthy", stroke: RED, paths: function () { return null; },
                 points: { show: true, size: 8, fill: RED, stroke: RED } }],
      axes: [{}, { size: 50 }]
    }, [c.x, c.y, bad], el);
    mark(el, "series-" + c.name, c.y.filter(function (v) { return v !== null; }).length);
  }

  // An entry's effective confidence: past (solid) and projected (dashed), on one time axis.
  function decay(el) {
    var d = data(el);
    if (!d || !window.uPlot) return;
    var xs = [], past = [], proj = [];
    d.past.forEach(function (p) { xs.push(p[0] / 1000); past.push(p[1]); proj.push(null); });
    d.projected.forEach(function (p) { xs.push(p[0] / 1000); past.push(null); proj.push(p[1]); });
    new uPlot({
      width: Math.max(300, el.clientWidth), height: 220, scales: { x: { time: true }, y: { range: [0, 1] } },
      series: [{}, { label: "past", stroke: BLUE, width: 2 }, { label: "projected", stroke: BLUE, width: 2, dash: [6, 5] }],
      axes: [{}, { size: 45 }]
    }, [xs, past, proj], el);
    mark(el, "decay", d.past.length + d.projected.length);
  }

  function bars(el) {
    var d = data(el);
    if (!d || !window.Chart) return;
    var stacked = el.dataset.stacked === "true";
    new Chart(el, {
      type: "bar", data: d,
      options: { animation: false, responsive: true, plugins: { legend: { display: stacked, position: "right" } },
                 scales: { x: { stacked: stacked }, y: { stacked: stacked, beginAtZero: true } } }
    });
    var n = 0;
    d.datasets.forEach(function (s) { n += s.data.length; });
    mark(el, el.dataset.source, n);
  }

  var KIND = { start: "#e67e22", Warning: RED, Heuristic: "#27ae60", Insight: BLUE, StrategyFragment: "#8e44ad" };
  function graph(el) {
    var elements = data(el);
    if (!elements || !window.cytoscape) return;
    var agent = (location.pathname.match(/\/console\/agents\/([^/]+)/) || [])[1];
    var cy = cytoscape({
      container: el, elements: elements, wheelSensitivity: 0.3,
      layout: { name: elements.length > 60 ? "grid" : "cose", animate: false },
      style: [
        { selector: "node", style: { "label": "data(label)", "font-size": 9, "text-wrap": "wrap", "text-max-width": 120,
                                     "background-color": function (n) { return KIND[n.data("kind")] || "#7f8c8d"; } } },
        { selector: "edge", style: { "label": "data(label)", "font-size": 8, "curve-style": "bezier", "width": 1.5,
                                     "target-arrow-shape": "triangle", "line-color": "#aab", "target-arrow-color": "#aab" } }
      ]
    });
    cy.on("tap", "node", function (evt) {
      var id = evt.target.id();
      if (!agent) return;
      var entity = /--|:/.test(id) && !evt.target.data("category");
      location.href = "/console/agents/" + agent + (entity ? "/graph?entity=" : "/items/") + encodeURIComponent(id);
    });
    mark(el, "graph", cy.nodes().length);
  }

  // Recent events: new ones from the console's event stream, newest on top.
  function live(list) {
    if (!window.EventSource || !list.dataset.stream) return;
    var state = document.getElementById("live-state");
    var url = list.dataset.stream + (list.dataset.after ? "?after=" + encodeURIComponent(list.dataset.after) : "");
    var source = new EventSource(url);
    source.onopen = function () { if (state) state.textContent = "live"; };
    source.onerror = function () { if (state) state.textContent = "reconnecting…"; };
    source.onmessage = add;
    JSON.parse(list.dataset.types || "[]").forEach(function (t) {  // each event type is an SSE event name
      source.addEventListener(t, add);
    });
    function add(msg) {
      var e;
      try { e = JSON.parse(msg.data); } catch (err) { return; }
      var empty = list.querySelector(".empty");
      if (empty) empty.remove();
      var li = document.createElement("li");
      var when = document.createElement("time");
      when.textContent = (e.at || "").replace("T", " ").slice(0, 16);
      var what = document.createElement("strong");
      what.textContent = " " + (e.type || msg.type) + " ";
      var payload = document.createElement("code");
      payload.textContent = JSON.stringify(e.payload || {});
      li.append(when, what, payload);
      li.className = "new";
      list.prepend(li);
      while (list.children.length > 50) list.lastElementChild.remove();
    }
    window.addEventListener("pagehide", function () { source.close(); });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".js-series").forEach(series);
    document.querySelectorAll(".js-decay").forEach(decay);
    document.querySelectorAll(".js-bars").forEach(bars);
    document.querySelectorAll(".js-graph").forEach(graph);
    var events = document.getElementById("events");
    if (events) live(events);
  });
})();
