// roundEnds(chart) keeps a zoomed value axis from labelling the ends of
// its window: echarts labels the window's edges ("4.246") beside the round
// ticks inside it, so while the slider cuts an end off, that end's label is
// hidden, and shown again when the window reaches the end of the data.
/* exported roundEnds */
function roundEnds(chart) {
  chart.on("datazoom", function () {
    var o = chart.getOption();
    if (!o.dataZoom || !o.dataZoom.length || !o.xAxis || o.xAxis[0].type === "category") return;
    var z = o.dataZoom[0];
    chart.setOption({xAxis: [{axisLabel: {showMinLabel: z.start > 0 ? false : null, showMaxLabel: z.end < 100 ? false : null}}]});
  });
}
