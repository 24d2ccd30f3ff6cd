/* Articles-per-hour bar chart drawn on a <canvas>: no library, no network.
   Reads the series from the JSON data block #hourly-data: [{"hour": ISO, "count": n}, ...]. */
(function () {
  "use strict";
  var canvas = document.getElementById("hourly-chart");
  var source = document.getElementById("hourly-data");
  if (!canvas || !source) { return; }
  var series = JSON.parse(source.textContent || "[]");

  function draw() {
    var ratio = window.devicePixelRatio || 1;
    var width = canvas.clientWidth, height = canvas.clientHeight;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    var ctx = canvas.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    var left = 44, right = 8, top = 10, bottom = 26;
    var plotW = width - left - right, plotH = height - top - bottom;
    var max = 0;
    series.forEach(function (p) { max = Math.max(max, p.count); });
    var step = niceStep(max);
    var top_value = Math.max(step, Math.ceil(max / step) * step);

    ctx.font = "11px system-ui, sans-serif";
    ctx.fillStyle = "#667085";
    ctx.strokeStyle = "#e4e7ec";
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    for (var v = 0; v <= top_value; v += step) {
      var y = top + plotH - (v / top_value) * plotH;
      ctx.beginPath(); ctx.moveTo(left, y + 0.5); ctx.lineTo(width - right, y + 0.5); ctx.stroke();
      ctx.fillText(String(v), left - 6, y);
    }
    if (!series.length) {
      ctx.textAlign = "center";
      ctx.fillText("no articles in this period", left + plotW / 2, top + plotH / 2);
      canvas.setAttribute("data-rendered", "empty");
      return;
    }
    var slot = plotW / series.length, bar = Math.max(1, slot * 0.75);
    ctx.fillStyle = "#1f5fbf";
    series.forEach(function (p, i) {
      var h = (p.count / top_value) * plotH;
      ctx.fillRect(left + i * slot + (slot - bar) / 2, top + plotH - h, bar, h);
    });
    ctx.fillStyle = "#667085";
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    var every = Math.max(1, Math.ceil(series.length / 8));
    series.forEach(function (p, i) {
      if (i % every === 0) {
        var d = new Date(p.hour);
        var label = isNaN(d) ? p.hour : pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " + pad(d.getHours()) + "h";
        ctx.fillText(label, left + i * slot + slot / 2, top + plotH + 6);
      }
    });
    canvas.setAttribute("data-rendered", String(series.length));
  }

  function niceStep(max) {
    if (max <= 5) { return 1; }
    var raw = max / 5, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    var norm = raw / mag;
    return (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
  }
  function pad(n) { return n < 10 ? "0" + n : String(n); }

  draw();
  window.addEventListener("resize", draw);
})();
