// dbarena report: interactive versions of the time-series figures, drawn
// with the embedded uPlot from the JSON each figure carries (chartOf in
// interactive.go). Point at a chart for the values at that second, drag
// across it to zoom (the panels of a figure follow), double-click to zoom
// back out. Without JavaScript, or if this fails, the SVG stays shown.
(function () {
  "use strict";
  if (typeof uPlot === "undefined") return;
  var px = uPlot.pxRatio || 1;

  // si writes a value as the figures' axes do: 12.5k, 1.5M, 0.85.
  function si(v) {
    if (v == null || !isFinite(v)) return "–";
    var a = Math.abs(v), units = [[1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]];
    for (var i = 0; i < units.length; i++) {
      if (a >= units[i][0]) return +(v / units[i][0]).toPrecision(3) + units[i][1];
    }
    return String(+v.toPrecision(3));
  }

  // nearest is the index closest to i where a series has a sample. The
  // panels' series are joined on the union of their x values, so each
  // holds undefined where only another series sampled; null is a gap.
  function nearest(ys, i) {
    for (var d = 0; d < ys.length; d++) {
      if (i - d >= 0 && ys[i - d] !== undefined) return i - d;
      if (i + d < ys.length && ys[i + d] !== undefined) return i + d;
    }
    return i;
  }

  // decorate paints the bands (warm-ups, reference runs) and the marks
  // (trial or stage starts) under the lines; labels on the top panel.
  function decorate(spec, labelled) {
    return function (u) {
      var ctx = u.ctx, b = u.bbox;
      ctx.save();
      ctx.beginPath();
      ctx.rect(b.left, b.top, b.width, b.height);
      ctx.clip();
      ctx.font = Math.round(10 * px) + "px sans-serif";
      ctx.textBaseline = "top";
      (spec.bands || []).forEach(function (band) {
        var x0 = u.valToPos(band.from, "x", true), x1 = u.valToPos(band.to, "x", true);
        ctx.fillStyle = band.color;
        ctx.fillRect(x0, b.top, x1 - x0, b.height);
        if (labelled && band.label && ctx.measureText(band.label).width + 4 * px < x1 - x0) {
          ctx.fillStyle = "#222";
          ctx.fillText(band.label, x0 + 2 * px, b.top + 14 * px);
        }
      });
      var marks = spec.marks || [];
      ctx.strokeStyle = "#bbb";
      ctx.lineWidth = px;
      marks.forEach(function (m, i) {
        var x = Math.round(u.valToPos(m.x, "x", true)) + 0.5;
        ctx.beginPath();
        ctx.moveTo(x, b.top);
        ctx.lineTo(x, b.top + b.height);
        ctx.stroke();
        var next = i + 1 < marks.length ? u.valToPos(marks[i + 1].x, "x", true) : b.left + b.width;
        if (labelled && m.label && ctx.measureText(m.label).width + 4 * px < next - x) {
          ctx.fillStyle = "#222";
          ctx.fillText(m.label, x + 2 * px, b.top + 2 * px);
        }
      });
      ctx.restore();
    };
  }

  function build(fig, spec) {
    var box = document.createElement("div");
    box.className = "chart";
    fig.insertBefore(box, fig.querySelector("svg"));
    var width = Math.min(box.clientWidth || 800, 1100);
    var charts = [], syncing = false;
    // Zooming one panel zooms the others of its figure.
    function follow(u, key) {
      if (key !== "x" || syncing) return;
      syncing = true;
      charts.forEach(function (o) {
        if (o !== u) o.setScale("x", { min: u.scales.x.min, max: u.scales.x.max });
      });
      syncing = false;
    }
    spec.panels.forEach(function (p, i) {
      var last = i === spec.panels.length - 1;
      var series = [{ label: "s", value: function (u, v) { return v == null ? "–" : (+v.toFixed(2)) + " s"; } }];
      p.series.forEach(function (s) {
        series.push({ label: s.label, stroke: s.color, width: 1.5, dash: s.dash ? [6, 3] : undefined,
          value: function (u, v) { return si(v); } });
      });
      var data = p.series.length ? uPlot.join(p.series.map(function (s) { return [s.x, s.y]; })) : [[]];
      var opts = {
        title: p.title || undefined,
        width: width, height: last ? 200 : 170, series: series,
        scales: {
          x: { time: false, range: function () { return [spec.xmin, spec.xmax]; } },
          y: p.log ? { distr: 3 } : { range: function (u, min, max) { return [0, max > 0 ? max * 1.08 : 1]; } }
        },
        axes: [
          { label: last ? spec.xlabel : "", size: last ? 50 : 12,
            values: function (u, vs) { return vs.map(last ? si : function () { return ""; }); } },
          { label: p.label, size: 60, values: function (u, vs) { return vs.map(si); } }
        ],
        cursor: { sync: { key: fig.id }, drag: { x: true, y: false },
          dataIdx: function (u, s, i) { return nearest(u.data[s], i); } },
        hooks: { drawClear: [decorate(spec, i === 0)], setScale: [follow] }
      };
      charts.push(new uPlot(opts, data, box));
    });
    fig.classList.add("js");
    return charts;
  }

  // probe points at the middle of the first chart and records what its
  // legend then says on <html data-probe>: the Chromium test's hover.
  function probe(u) {
    var r = u.over.getBoundingClientRect();
    u.over.dispatchEvent(new MouseEvent("mousemove", { bubbles: true, clientX: r.left + r.width / 2, clientY: r.top + r.height / 2 }));
    var vals = Array.prototype.map.call(u.root.querySelectorAll(".u-legend .u-value"), function (e) { return e.textContent; });
    document.documentElement.setAttribute("data-probe", vals.join(" | "));
  }

  var all = [];
  document.querySelectorAll("figure > script.chart-data").forEach(function (el) {
    try {
      all = all.concat(build(el.parentNode, JSON.parse(el.textContent)));
    } catch (e) {
      console.error("chart " + el.parentNode.id + ": " + e);
    }
  });
  document.documentElement.setAttribute("data-charts", String(all.length));
  if (location.hash === "#probe" && all.length) probe(all[0]);
})();
