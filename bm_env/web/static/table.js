// The web table's page: it talks to the JSON API of bm_env/web/app.py and draws the table with
// the server's SVG picture of the seat's view. Clicking a card of the hand plays it (while
// passing, selects it; the Pass button sends the selection); a card that may not be played
// is dimmed in the picture and a click on it says why. document.body.dataset.state is
// "busy" while a request is out and "ready" once an answer is drawn, and .shown counts the
// views drawn (tests wait on them).
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  let presets = [];
  let gameId = null;
  let view = null;
  let selected = [];

  function pretty(card) {
    const rank = card[0] === "T" ? "10" : card[0];
    const suit = card[card.length - 1];
    const red = suit === "H" || suit === "D";
    return `<span class="${red ? "red" : ""}">${rank}${SUITS[suit]}</span>`;
  }
  function seatName(s) {
    return `player_${s}` + (view && s === view.seat ? " (you)" : "");
  }
  function say(text, isError) {
    $("message").textContent = text;
    $("message").className = isError ? "error" : "";
  }

  async function api(method, path, body) {
    document.body.dataset.state = "busy";
    const init = { method, headers: {} };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    const data = await response.json();
    if (!response.ok) {
      document.body.dataset.state = "ready";
      throw new Error(data.error || `HTTP ${response.status}`);
    }
    return data;
  }

  // ---------------------------------------------------------------- the setup form
  function fillPlayers() {
    const p = presets.find((x) => x.name === $("preset").value);
    const select = $("players");
    select.innerHTML = "";
    for (const n of p.players) select.add(new Option(String(n), String(n), false, n === p.default_players));
    fillOpponents();
  }
  function fillOpponents() {
    const p = presets.find((x) => x.name === $("preset").value);
    const shipped = p.shipped.includes(Number($("players").value));
    $("opponents").placeholder = shipped ? "the shipped agent" : "heuristic";
  }
  async function start(event) {
    event.preventDefault();
    const body = {
      rules: $("preset").value,
      players: Number($("players").value),
      match: document.querySelector("input[name=episode]:checked").value === "match",
    };
    const opponents = $("opponents").value.trim();
    if (opponents) body.opponents = opponents;
    const seed = $("seed").value.trim();
    if (seed) body.seed = Number(seed);
    try {
      const answer = await api("POST", "/api/games", body);
      gameId = answer.id;
      history.replaceState(null, "", "#game=" + gameId);
      say("");
      await show(answer.view);
    } catch (e) {
      say(e.message, true);
    }
  }

  // ---------------------------------------------------------------- drawing a view
  const NO_HINT = '<p class="muted">Ask for a hint: what the shipped agent would play here.</p>';

  async function show(next) {
    view = next;
    selected = [];
    $("hint").innerHTML = NO_HINT;
    const svgResponse = await fetch(`/api/games/${gameId}/table.svg`);
    $("table").innerHTML = await svgResponse.text();
    const illegal = Object.fromEntries(view.illegal.map((x) => [x.card, x.reason]));
    for (const g of document.querySelectorAll("#table g.hand-card")) {
      const card = g.dataset.card;
      if (card in illegal) g.classList.add("illegal");
      g.addEventListener("click", () => clickCard(card));
    }
    drawStatus();
    drawControls();
    drawScores();
    drawThoughts();
    drawPrevious();
    document.body.dataset.phase = view.phase;
    document.body.dataset.over = String(view.over);
    document.body.dataset.shown = String(Number(document.body.dataset.shown || 0) + 1);
    document.body.dataset.state = "ready";
  }

  function drawStatus() {
    let text;
    if (view.over) {
      const winners = view.winners ? view.winners.map(seatName).join(", ") : null;
      const scores = view.deal_scores ? view.seats.map((s) => `${seatName(s)} ${view.deal_scores[s]}`).join(", ") : "";
      text = winners ? `The match is over. Winner(s): ${winners}.` : `The deal is over. Scores: ${scores}.`;
    } else if (view.your_turn && view.phase === "pass") {
      text = `Deal ${view.deal}: pick ${view.pass.to_pick} card(s) to pass ${view.pass.direction}, then press Pass.`;
    } else if (view.your_turn) {
      const lead = view.trick.cards.length ? `${view.trick.led_suit} led by ${seatName(view.trick.cards[0].seat)}`
        : "your lead";
      text = `Deal ${view.deal}, trick ${view.tricks.length + 1}: your turn to ${view.phase} (${lead}).`;
    } else {
      text = `Deal ${view.deal}: waiting for ${seatName(view.to_act)}.`;
    }
    $("status").textContent = text;
    $("goal").textContent = view.goal;
  }

  function drawControls() {
    const pass = $("confirm-pass");
    pass.hidden = !(view.your_turn && view.phase === "pass");
    updatePassButton();
    const extras = $("extra-actions");
    extras.innerHTML = "";
    if (view.your_turn) {
      for (const a of view.actions) {
        const b = document.createElement("button");
        b.textContent = a.name;
        b.dataset.action = String(a.id);
        b.onclick = () => move({ action: a.id });
        extras.appendChild(b);
      }
    }
    $("hint-button").disabled = !(view.hint && view.your_turn);
    $("hint-button").title = view.hint ? "what the shipped agent would play here" : "no shipped agent plays these rules";
    const download = $("download");
    const replay = $("replay");
    replay.href = `/api/games/${gameId}/replay`;
    replay.classList.remove("disabled");
    replay.removeAttribute("aria-disabled");
    if (view.over) {
      download.href = `/api/games/${gameId}/record`;
      download.setAttribute("download", `${view.rules}-${gameId}.json`);
      download.classList.remove("disabled");
      download.removeAttribute("aria-disabled");
      download.title = "the game record, for bm-replay";
    } else {
      download.removeAttribute("href");
      download.classList.add("disabled");
      download.title = "the record shows every hand: it can be downloaded once the game is over";
    }
  }

  function updatePassButton() {
    const pass = $("confirm-pass");
    const need = view.pass.to_pick;
    pass.textContent = `Pass ${selected.length} of ${need}`;
    pass.disabled = selected.length !== need;
    for (const g of document.querySelectorAll("#table g.hand-card")) {
      g.classList.toggle("selected", selected.includes(g.dataset.card));
    }
  }

  function drawScores() {
    const n = view.players;
    let rows = "<tr><th>seat</th><th>match</th><th>this deal</th><th>tricks</th></tr>";
    for (let s = 0; s < n; s++) {
      const agent = s === view.seat ? "you" : view.opponents[String(s)].split(":")[0];
      rows += `<tr class="${s === view.seat ? "you" : ""}" data-seat="${s}"><td>player_${s} (${agent})</td>` +
        `<td class="total">${view.match_totals[s]}</td><td class="taken">${view.points_taken[s]}</td>` +
        `<td>${view.tricks_won[s]}</td></tr>`;
    }
    $("scores").innerHTML = rows;
  }

  function thoughtHtml(t) {
    const numbers = Object.entries(t.values).sort((a, b) => b[1] - a[1]).map(([card, v]) => {
      const shown = t.kind === "probability" ? `${Math.round(v * 100)}%` : v.toFixed(2);
      const bar = t.kind === "probability" ? `<span class="bar" style="width:${Math.round(v * 60)}px"></span>` : "";
      return `${pretty(card)} ${shown}${bar}`;
    }).join(" · ");
    return `<p class="thought" data-seat="${t.seat}">${seatName(t.seat)} played ${pretty(t.played)} — ` +
      `${t.kind === "probability" ? "probabilities" : "playout values"}: ${numbers}</p>`;
  }

  function drawThoughts() {
    const box = $("thoughts");
    let list = [];
    let title = "";
    if (view.tricks.length) {
      const last = view.tricks.length;
      list = view.thoughts.filter((t) => t.trick === last);
      title = `Trick ${last}`;
    } else if (view.previous) {
      list = view.previous.thoughts;
      title = `Last trick of deal ${view.previous.number}`;
    }
    if (!title) {
      box.innerHTML = '<p class="muted">After each trick.</p>';
      return;
    }
    box.innerHTML = `<p class="muted">${title} (only cards already played are shown):</p>` +
      (list.length ? list.map(thoughtHtml).join("") : '<p class="muted">No agent explained itself.</p>');
  }

  function drawPrevious() {
    const p = view.previous;
    if (!p) {
      $("previous").innerHTML = '<p class="muted">None yet.</p>';
      return;
    }
    const trick = p.last_trick.cards.map((c) => `${seatName(c.seat)} ${pretty(c.card)}`).join(", ");
    const won = p.last_trick.winner === null ? "left on the table" : `won by ${seatName(p.last_trick.winner)}`;
    const scores = Object.entries(p.scores).map(([s, x]) => `${seatName(Number(s))} ${x}`).join(", ");
    $("previous").innerHTML = `<p>Deal ${p.number}. Last trick: ${trick}, ${won}.</p><p>Scores: ${scores}.</p>`;
  }

  // ---------------------------------------------------------------- acting
  function clickCard(card) {
    if (!view || !view.your_turn || document.body.dataset.state === "busy") return;
    const reason = view.illegal.find((x) => x.card === card);
    if (reason) {
      say(`You may not ${view.phase} ${card}: ${reason.reason}.`, true);
      document.body.dataset.explained = card;
      return;
    }
    if (view.phase === "pass") {
      const i = selected.indexOf(card);
      if (i >= 0) selected.splice(i, 1);
      else if (selected.length < view.pass.to_pick) selected.push(card);
      updatePassButton();
      return;
    }
    move({ card });
  }

  async function move(body) {
    try {
      const next = await api("POST", `/api/games/${gameId}/actions`, body);
      say("");
      await show(next);
    } catch (e) {
      say(e.message, true);
    }
  }

  async function hint() {
    try {
      const h = await api("GET", `/api/games/${gameId}/hint`);
      document.body.dataset.state = "ready";
      const entries = Object.entries(h.values || {});
      const shown = h.kind === "probability" ? entries.filter(([, v]) => v >= 0.01) : entries;
      let numbers = shown.map(([card, v]) =>
        `${pretty(card)} ${h.kind === "probability" ? Math.round(v * 100) + "%" : v.toFixed(2)}`).join(" · ");
      if (shown.length < entries.length) numbers += ` · ${entries.length - shown.length} other card(s) under 1%`;
      $("hint").innerHTML = `<p id="hint-card" data-card="${h.action}">The shipped agent would play ` +
        `${pretty(h.action)}.</p><p>${numbers}</p>`;
      for (const g of document.querySelectorAll("#table g.hand-card")) {
        g.classList.toggle("hinted", g.dataset.card === h.action);
      }
    } catch (e) {
      say(e.message, true);
    }
  }

  async function resume() {
    const m = location.hash.match(/game=([A-Za-z0-9_-]+)/);
    if (!m) return;
    try {
      gameId = m[1];
      await show(await api("GET", `/api/games/${gameId}`));
    } catch (e) {
      gameId = null;
      say(e.message, true);
    }
  }

  async function init() {
    presets = await (await fetch("/api/presets")).json();
    for (const p of presets) $("preset").add(new Option(p.name, p.name, false, p.name === "black_maria"));
    fillPlayers();
    $("preset").onchange = fillPlayers;
    $("players").onchange = fillOpponents;
    $("setup").onsubmit = start;
    $("confirm-pass").onclick = () => move({ cards: selected.slice() });
    $("hint-button").onclick = hint;
    await resume();
    if (!gameId) document.body.dataset.state = "setup";
  }
  init();
})();
