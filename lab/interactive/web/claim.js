// claim(state, then) finds the fragment's div (the first with the id id not
// yet claimed), marks it with data-backofflab=state and calls then(div).
//
// The div may be attached to the page after the script runs (some front
// ends run it first), so claim looks for it when echarts is ready, and
// again every 50 ms for 10 s. Identical charts share an id: each script
// takes the first div not yet claimed.
/* global id */
/* exported claim */
function claim(state, then) {
  var tries = 0;
  (function look() {
    var all = document.querySelectorAll('div[id="' + id + '"]');
    for (var k = 0; k < all.length; k++) {
      if (!all[k].hasAttribute("data-backofflab")) {
        all[k].setAttribute("data-backofflab", state);
        then(all[k]);
        return;
      }
    }
    if (++tries < 200) setTimeout(look, 50);
  })();
}
