// backofflabLoadECharts(done, fail) loads the echarts script once per page
// and calls done(echarts), or fail(reason) if no candidate URL serves it.
//
// The candidates come from assets, which the fragment around this function
// declares: assets.paths relative to the Jupyter base URL (the "baseUrl" of
// <script id="jupyter-config-data"> in JupyterLab and Notebook 7, "/"
// otherwise), then assets.site relative to the page; in a page without
// jupyter-config-data (the static site) assets.site comes first.
// Charts waiting at the same time share one load. done and fail are always
// called asynchronously.
/* global assets */
/* exported backofflabLoadECharts */
function backofflabLoadECharts(done, fail) {
  var w = window, d = document, base = "/";
  var cfg = d.getElementById("jupyter-config-data");
  try {
    if (cfg) {
      var conf = JSON.parse(cfg.textContent || "{}");
      if (conf.baseUrl) base = conf.baseUrl;
    }
  } catch (e) {}
  if (base.charAt(base.length - 1) !== "/") base += "/";
  var urls = assets.paths.map(function (p) { return base + p; });
  // Outside Jupyter (a static page), the page's own assets folder first.
  urls = cfg ? urls.concat([assets.site]) : [assets.site].concat(urls);
  if (w.echarts && typeof w.echarts.init === "function") {
    setTimeout(function () { done(w.echarts); }, 0);
    return;
  }
  if (w.backofflabEChartsWaiting) {
    w.backofflabEChartsWaiting.push([done, fail]);
    return;
  }
  var waiting = w.backofflabEChartsWaiting = [[done, fail]];
  var i = 0;
  function finish(echarts, why) {
    w.backofflabEChartsWaiting = null;
    waiting.forEach(function (cb) { if (echarts) cb[0](echarts); else cb[1](why); });
  }
  (function next() {
    if (i >= urls.length) {
      finish(null, "could not load " + urls.join(" or "));
      return;
    }
    // Hide a stray AMD define while echarts loads, so that it sets
    // window.echarts instead of registering an anonymous module.
    var s = d.createElement("script"), amd = w.define;
    var hide = !!(amd && amd.amd);
    if (hide) w.define = undefined;
    s.src = urls[i++];
    s.onload = function () {
      if (hide) w.define = amd;
      if (w.echarts && typeof w.echarts.init === "function") finish(w.echarts);
      else next();
    };
    s.onerror = function () {
      if (hide) w.define = amd;
      if (s.parentNode) s.parentNode.removeChild(s);
      next();
    };
    d.head.appendChild(s);
  })();
}
