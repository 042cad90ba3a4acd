// cardlab serve: the page over the JSON API of cardlab/play/web.py. No build step, no libraries.
// The body's data-phase tells where the page is: idle, busy (a request out), your-turn, bots (they move),
// over (the result shown), replay (a replay step shown). The browser test waits on it.
"use strict";

const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const CARD = /^(\(?)([2-9TJQKA][CDHS]|RJ|BJ)([,;:.)]*)$/;
let game = null; // the last view of the game being played
let replay = null; // the last replay step shown

const $ = (id) => document.getElementById(id);

function setPhase(phase) { document.body.dataset.phase = phase; }

function showError(text) {
  $("message").textContent = text;
  $("message").hidden = false;
}

function clearError() { $("message").hidden = true; }

async function api(method, path, body) {
  const options = { method, headers: { "Content-Type": "application/json" } };
  if (body !== undefined) options.body = JSON.stringify(body);
  let response, data;
  try {
    response = await fetch(path, options);
    data = await response.json();
  } catch (error) {
    throw new Error(`the server did not answer (${error.message}); is cardlab serve still running?`);
  }
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

// ---- cards ---------------------------------------------------------------------------------------
function cardElement(text, small, tag) {
  const card = document.createElement(tag || "span");
  card.className = "card" + (small ? " small" : "");
  card.dataset.card = text;
  if (text === "RJ" || text === "BJ") {
    card.classList.add("joker");
    card.innerHTML = `<span class="rank">${text === "RJ" ? "red" : "black"}</span><span class="suit">★</span>`;
    card.title = text === "RJ" ? "red joker" : "black joker";
    return card;
  }
  const rank = text[0] === "T" ? "10" : text[0];
  const suit = text[1];
  if (suit === "H" || suit === "D") card.classList.add("red");
  card.innerHTML = `<span class="rank">${rank}</span><span class="suit">${SUITS[suit]}</span>`;
  card.title = text;
  return card;
}

// A line of text with every card token drawn as a small card.
function richText(text) {
  const span = document.createElement("span");
  text.split(" ").forEach((word, i) => {
    if (i > 0) span.append(" ");
    const match = CARD.exec(word);
    if (match) {
      span.append(match[1], cardElement(match[2], true), match[3]);
    } else {
      span.append(word);
    }
  });
  return span;
}

function drawHands(box, hands, labels, playable) {
  box.replaceChildren();
  for (const { seat, cards } of hands) {
    const row = document.createElement("div");
    row.className = "hand";
    row.id = `hand-${seat}`;
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = `P${seat}` + (labels ? ` ${labels[seat]}` : "");
    row.append(who);
    if (cards.length === 0) row.append("(no cards)");
    for (const text of cards) {
      const move = playable && playable.get(text);
      const card = cardElement(text, false, move ? "button" : "span");
      if (move) {
        card.classList.add("move");
        card.dataset.move = move;
        card.addEventListener("click", () => makeMove(move));
      }
      row.append(card);
    }
    box.append(row);
  }
}

function drawRows(table, rows) {
  table.replaceChildren();
  for (const [label, value] of rows) {
    const tr = table.insertRow();
    tr.insertCell().textContent = label;
    tr.insertCell().append(richText(value));
  }
}

// ---- playing -------------------------------------------------------------------------------------
async function loadGames() {
  const { games, agents } = await api("GET", "/api/games");
  for (const g of games) $("game").add(new Option(g.title, g.name));
  for (const a of agents) $("agents").append(new Option(a));
  const byName = Object.fromEntries(games.map((g) => [g.name, g]));
  const choosePlayers = () => {
    const { players, default_players } = byName[$("game").value];
    $("players-label").hidden = players.length < 2;
    $("players").replaceChildren(...players.map((n) => new Option(String(n), String(n))));
    $("players").value = String(default_players);  // the game's usual table, not the smallest
  };
  $("game").addEventListener("change", choosePlayers);
  choosePlayers();
}

async function newGame(event) {
  event.preventDefault();
  const body = {
    game: $("game").value, seat: $("seat").value, seed: $("seed").value,
    partner: $("partner").value, opponents: $("opponents").value,
  };
  if (!$("players-label").hidden) body.players = $("players").value;
  await request(() => api("POST", "/api/game", body));
}

// Run one request: the page is busy meanwhile, an error goes to the message line.
async function request(call) {
  clearError();
  const before = document.body.dataset.phase;
  setPhase("busy");
  try {
    const view = await call();
    if (view) await showGame(view);
  } catch (error) {
    showError(error.message);
    setPhase(before === "busy" ? "idle" : before);
  }
}

async function showGame(view) {
  game = view;
  $("table").hidden = false;
  $("title").textContent = view.title;
  $("advice").hidden = true;
  const playable = new Map(view.legal.map((m) => [m.text, m.text]));
  drawHands($("hands"), view.position.hands, null, playable);
  drawRows($("rows"), view.position.rows);
  drawRecent(view);
  drawLegal(view);
  $("prompt").hidden = !view.prompt;
  $("prompt").textContent = view.prompt || "";
  $("knows").hidden = view.game !== "cardlab_literature";
  for (const id of ["type-move", "undo", "hint", "knows"]) $(id).disabled = !view.your_turn;
  $("undo").disabled = view.over || view.moves.every((m) => m.player !== view.seat);
  $("result").hidden = !view.over;
  if (view.over) {
    const r = view.result;
    $("result-text").textContent = r.text;
    $("result-returns").textContent = "returns: " + r.returns.map((x, p) => `P${p} ${signed(x)}`).join(", ");
    $("result").dataset.returns = JSON.stringify(r.returns);
    $("result-saved").textContent = `saved as game ${r.saved} in ${r.out}`;
    $("status").textContent = "the game is over";
    setPhase("over");
  } else if (view.bots_to_move) {
    $("status").textContent = `P${view.to_move} (${view.labels[view.to_move]}) is thinking…`;
    setPhase("bots");
    const next = await api("POST", `/api/game/${view.id}/bots`, {});
    await showGame(next);
  } else {
    $("status").textContent = `your turn, P${view.seat}`;
    setPhase("your-turn");
  }
}

function signed(x) { return (x > 0 ? "+" : "") + x; }

// The moves since the person's previous decision (at least one round of the table).
function drawRecent(view) {
  const list = $("recent-moves");
  list.replaceChildren();
  const moves = view.moves;
  let last = moves.length - 1;
  while (last >= 0 && moves[last].player !== view.seat) last--;
  const from = last < 0 ? 0 : Math.max(0, Math.min(last, moves.length - view.num_players));
  moves.slice(from).forEach((move, k) => {
    const item = document.createElement("li");
    item.value = from + k + 1;
    item.append(`P${move.player} (${view.labels[move.player]}): `, richText(move.text));
    if (move.note) item.title = move.note;
    list.append(item);
  });
}

// The legal moves not shown as playable cards in the hand, grouped by their leading words
// ("bid", "ask P3", "claim", "assign"), a card drawn as a card.
function drawLegal(view) {
  const box = $("legal");
  box.replaceChildren();
  const hand = new Set(view.position.hands.flatMap((h) => h.cards));
  const groups = new Map();
  for (const { text } of view.legal) {
    if (hand.has(text)) continue;
    const words = text.split(" ");
    const head = words.length > 1 ? words.slice(0, -1).join(" ") : "";
    if (!groups.has(head)) groups.set(head, []);
    groups.get(head).push([words[words.length - 1], text]);
  }
  for (const [head, items] of groups) {
    const row = document.createElement("div");
    row.className = "group";
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = head;
    row.append(who);
    for (const [last, text] of items) {
      const button = CARD.test(last) ? cardElement(last, true, "button") : document.createElement("button");
      if (!CARD.test(last)) button.textContent = head ? last : text;
      button.type = "button";
      button.classList.add("move");
      button.dataset.move = text;
      button.title = text;
      button.addEventListener("click", () => makeMove(text));
      row.append(button);
    }
    box.append(row);
  }
}

function makeMove(text) {
  if (!game || document.body.dataset.phase !== "your-turn") return;
  return request(() => api("POST", `/api/game/${game.id}/move`, { move: text }));
}

async function advice(kind) {
  clearError();
  setPhase("busy");
  try {
    const data = kind === "hint" ? await api("POST", `/api/game/${game.id}/hint`, {})
      : await api("GET", `/api/game/${game.id}/knows`);
    $("advice").textContent = data.hint || data.knows;
    $("advice").hidden = false;
  } catch (error) {
    showError(error.message);
  }
  setPhase("your-turn");
}

// ---- replaying -----------------------------------------------------------------------------------
async function loadSources(selected) {
  const { sources } = await api("GET", "/api/deals");
  $("source").replaceChildren(...sources.map((s) => new Option(
    `${s.source} (${s.kind}, ${s.game}, ${s.deals} deals)`, s.source)));
  if (selected) $("source").value = selected;
  if (sources.length === 0) showError("no stored deals: start cardlab serve with --results DIR, or play a game");
}

async function showStep(step) {
  clearError();
  setPhase("busy");
  const query = new URLSearchParams({
    source: $("source").value, deal: $("replay-deal").value, seating: $("replay-seating").value,
    step: String(step), view: $("replay-view").value,
  });
  try {
    replay = await api("GET", `/api/replay?${query}`);
  } catch (error) {
    showError(error.message);
    setPhase(replay ? "replay" : "idle");
    return;
  }
  const r = replay;
  $("replay-board").hidden = false;
  const views = [["all", "every hand"], ...r.seat_agents.map((a, p) => [String(p), `P${p}'s view`])];
  const view = String(r.view);
  $("replay-view").replaceChildren(...views.map(([v, t]) => new Option(t, v)));
  $("replay-view").value = view;
  $("replay-title").textContent = `${r.title} deal ${r.deal}, seating ${r.seating} (deal seed ${r.deal_seed}): `
    + r.seat_agents.map((a, p) => `P${p} ${a}`).join(", ");
  $("step").textContent = `move ${Math.min(r.step + 1, r.length)} of ${r.length}` + (r.move ? "" : " — the end");
  $("step").dataset.step = r.step;
  $("step").dataset.length = r.length;
  const line = $("replay-move");
  line.replaceChildren();
  delete line.dataset.returns;
  if (r.move) {
    line.append(`P${r.move.player} (${r.seat_agents[r.move.player]}) plays `, richText(r.move.text));
    if (r.move.note) line.append(`  — search: ${r.move.note}`);
  } else {
    line.append("end of the deal: returns " + r.returns.map((x, p) => `P${p} ${signed(x)}`).join(", "));
    line.dataset.returns = JSON.stringify(r.returns);
  }
  drawHands($("replay-hands"), r.position.hands, r.seat_agents, null);
  drawRows($("replay-rows"), r.position.rows);
  $("start").disabled = $("back").disabled = r.step === 0;
  $("next").disabled = $("end").disabled = r.step === r.length;
  setPhase("replay");
}

function showTab(name) {
  for (const tab of ["play", "replay"]) {
    $(tab).hidden = tab !== name;
    $(`tab-${tab}`).classList.toggle("active", tab === name);
  }
  if (name === "replay") loadSources($("source").value).catch((error) => showError(error.message));
}

// ---- wiring --------------------------------------------------------------------------------------
document.addEventListener("DOMContentLoaded", () => {
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => showTab(tab.dataset.tab));
  $("new-game").addEventListener("submit", newGame);
  $("typed").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("move-text").value;
    $("move-text").value = "";
    if (!game || document.body.dataset.phase !== "your-turn") return;
    request(() => api("POST", `/api/game/${game.id}/move`, { move: text }));
  });
  $("undo").addEventListener("click", () => request(() => api("POST", `/api/game/${game.id}/undo`, {})));
  $("hint").addEventListener("click", () => advice("hint"));
  $("knows").addEventListener("click", () => advice("knows"));
  $("replay-this").addEventListener("click", async () => {
    showTab("replay");
    await loadSources(game.result.source);
    $("replay-deal").value = game.result.saved;
    $("replay-seating").value = 0;
    showStep(0);
  });
  $("replay-form").addEventListener("submit", (event) => { event.preventDefault(); showStep(0); });
  $("replay-view").addEventListener("change", () => replay && showStep(replay.step));
  $("start").addEventListener("click", () => showStep(0));
  $("back").addEventListener("click", () => showStep(replay.step - 1));
  $("next").addEventListener("click", () => showStep(replay.step + 1));
  $("end").addEventListener("click", () => showStep(replay.length));
  document.addEventListener("keydown", (event) => {
    if ($("replay").hidden || !replay || event.target.tagName === "INPUT") return;
    const step = { ArrowRight: replay.step + 1, ArrowLeft: replay.step - 1, Home: 0, End: replay.length }[event.key];
    if (step !== undefined && step >= 0 && step <= replay.length) showStep(step);
  });
  loadGames().catch((error) => showError(error.message));
});
