// bm-replay's player: the frames are embedded, deflate-compressed JSON per view
// ([[deal, caption, svg, chart], ...]); this opens them with the browser's own
// DecompressionStream and steps through them. Keys: arrows step, Home/End, Page Up/Down
// jump a deal. document.body.dataset.index and .view say what is shown (tests read them).
"use strict";
(async function () {
  const meta = JSON.parse(document.getElementById("replay-meta").textContent);
  const cache = {};
  async function framesOf(view) {
    if (!cache[view]) {
      const text = document.getElementById("frames-" + view).textContent.trim();
      const bytes = Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
      cache[view] = JSON.parse(await new Response(stream).text());
    }
    return cache[view];
  }
  const $ = (id) => document.getElementById(id);
  if (typeof DecompressionStream === "undefined") {
    $("caption").textContent = "This browser cannot open the replay (it lacks DecompressionStream); use a current one.";
    return;
  }
  let view = meta.views[0].id;
  let frames = await framesOf(view);
  let index = 0;

  function show() {
    const [deal, caption, svg, chart] = frames[index];
    const deals = frames[frames.length - 1][0] + 1;
    $("board").innerHTML = svg;
    $("chart").innerHTML = chart || "";
    $("caption").textContent = caption;
    $("position").textContent = `deal ${deal + 1} of ${deals} · step ${index + 1} of ${frames.length}`;
    document.body.dataset.index = String(index);
    document.body.dataset.view = view;
  }
  function go(i) {
    index = Math.max(0, Math.min(frames.length - 1, i));
    show();
  }
  function goDeal(delta) {
    const target = frames[index][0] + delta;
    const i = frames.findIndex((f) => f[0] === target);
    if (i >= 0) go(i);
    else go(delta > 0 ? frames.length - 1 : 0);
  }
  const keys = {
    ArrowRight: () => go(index + 1), ArrowLeft: () => go(index - 1), Home: () => go(0),
    End: () => go(frames.length - 1), PageDown: () => goDeal(1), PageUp: () => goDeal(-1),
  };
  document.addEventListener("keydown", (e) => {
    if (keys[e.key] && !(e.target instanceof HTMLSelectElement)) {
      e.preventDefault();
      keys[e.key]();
    }
  });
  $("first").onclick = keys.Home;
  $("prev").onclick = keys.ArrowLeft;
  $("next").onclick = keys.ArrowRight;
  $("last").onclick = keys.End;
  $("prev-deal").onclick = keys.PageUp;
  $("next-deal").onclick = keys.PageDown;
  const select = $("view");
  if (select) {
    for (const v of meta.views) select.add(new Option(v.label, v.id));
    select.onchange = async () => {
      view = select.value;
      frames = await framesOf(view);
      show();
      select.blur();
    };
  }
  show();
  document.body.dataset.ready = "true";
})();
