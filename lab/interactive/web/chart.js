// The script of one interactive chart: load echarts, then draw option in
// the fragment's div; or, if echarts cannot be loaded, say so in the div.
/* global option, help, backofflabLoadECharts, claim, roundEnds */
backofflabLoadECharts(function (echarts) {
  claim("drawn", function (el) {
    el.innerHTML = "";
    var chart = echarts.init(el, null, {renderer: "canvas"});
    chart.setOption(option);
    roundEnds(chart);
    if (typeof ResizeObserver === "function") {
      new ResizeObserver(function () { chart.resize(); }).observe(el);
    }
  });
}, function (why) {
  claim("failed", function (el) {
    el.style.height = "auto";
    el.innerHTML = "";
    var p = document.createElement("p");
    p.style.cssText = "font:14px sans-serif;color:#a00;border:1px solid #a00;padding:8px;margin:0;";
    p.textContent = help + " (" + why + ")";
    el.appendChild(p);
  });
});
