// gsolve viewer: pick a solved game, click moves (coloured by their value for the mover),
// undo, restart (back to the game's start), and a value-history chart. Everything comes from GET /api/query, whose
// object is exactly `gsolve query --json`'s.
"use strict";

const COLOURS = { win: "#2e7d32", lose: "#b3261e", tie: "#e0a800", draw: "#3b6fb6" };
const FLIP = { win: "lose", lose: "win", tie: "tie", draw: "draw" };
const $ = (id) => document.getElementById(id);

const state = { games: [], game: null, start: null, history: [], moves: [], busy: false };

function word(value, rem) { return rem === null || rem === undefined ? value : `${value} in ${rem}`; }

// a move's value for the player who makes it (a child's value is for its own mover)
function forMover(m) {
  const value = state.game.puzzle ? m.value : FLIP[m.value];
  return [value, m.remoteness === null ? null : m.remoteness + 1];
}

function isBest(info, m) {
  const want = state.game.puzzle ? "win" : FLIP[info.value];
  if (m.value !== want) return false;
  return info.remoteness === null || m.remoteness === info.remoteness - 1;
}

function side(ply) { return state.game.puzzle ? "first" : (ply % 2 === 0 ? "first" : "second"); }

// A position string as a grid: rows split at "/", cells at "," when a row has them (stacks),
// else one character each; what follows a space (side to move, hands) goes underneath.
function parseBoard(position) {
  const cut = position.indexOf(" ");
  const board = cut < 0 ? position : position.slice(0, cut);
  const extra = cut < 0 ? "" : position.slice(cut + 1);
  const rows = board.split("/").map((r) => (r.includes(",") ? r.split(",") : [...r]));
  return { rows, extra };
}

async function api(params) {
  const q = new URLSearchParams(params);
  const res = await fetch(`/api/query?${q}`);
  const obj = await res.json();
  if (!res.ok) throw new Error(obj.error || res.statusText);
  return obj;
}

function showError(text) { $("error").textContent = text || ""; }

async function query(position) {
  const p = { game: state.game.game, variant: state.game.variant };
  if (position !== null) p.position = position;
  return api(p);
}

async function choose(index) {
  state.game = state.games[index];
  showError("");
  try {
    state.history = [await query(null)];
    state.start = state.history[0].position;
    state.moves = [];
  } catch (e) { showError(e.message); state.history = []; }
  render();
}

async function play(m) {
  if (state.busy) return;
  state.busy = true;
  try {
    const info = await query(m.position);
    state.history.push(info);
    state.moves.push(m.move);
    showError("");
  } catch (e) { showError(e.message); }
  state.busy = false;
  render();
}

// look at any position (null: the game's start): it becomes the start of the history (undo
// goes no further back)
async function goTo(position) {
  try {
    state.history = [await query(position)];
    state.moves = [];
    showError("");
  } catch (e) { showError(e.message); return; }
  render();
}

function undo() {
  if (state.history.length > 1) { state.history.pop(); state.moves.pop(); render(); }
}

// back to the game's start, also from a position typed in
function restart() {
  if (state.history[0].position === state.start) {
    state.history = state.history.slice(0, 1); state.moves = []; render();
  } else {
    goTo(null);
  }
}

function atStart() { return state.history.length === 1 && state.history[0].position === state.start; }

function current() { return state.history[state.history.length - 1]; }

// the cells a move changes, by comparing the board with the child's
function changed(position, child) {
  const a = parseBoard(position).rows, b = parseBoard(child).rows, out = [];
  a.forEach((row, r) => row.forEach((c, i) => { if (!b[r] || b[r][i] !== c) out.push(`${r},${i}`); }));
  return out;
}

function renderBoard(info) {
  const el = $("board");
  const { rows, extra } = parseBoard(info.position);
  const width = Math.max(...rows.map((r) => r.length));
  el.style.gridTemplateColumns = `repeat(${width}, 52px)`;
  el.replaceChildren();
  rows.forEach((row, r) => {
    row.forEach((c, i) => {
      const cell = document.createElement("div");
      cell.className = "cell" + (c === "-" || c === "." ? " empty" : "");
      cell.dataset.cell = `${r},${i}`;
      cell.textContent = c;
      cell.addEventListener("click", () => clickCell(`${r},${i}`));
      el.appendChild(cell);
    });
    for (let i = row.length; i < width; i++) el.appendChild(document.createElement("span"));
  });
  if (extra) {
    const e = document.createElement("div");
    e.className = "extra"; e.textContent = extra; el.appendChild(e);
  }
}

// clicking a cell plays the one move that changes it (preferring moves that fill it); in a
// game whose pieces fall (Connect-4) any cell of a column plays that column's move
function clickCell(key) {
  const info = current();
  const column = key.split(",")[1];
  const hit = state.game.columns
    ? (m) => changed(info.position, m.position).some((k) => k.split(",")[1] === column)
    : (m) => changed(info.position, m.position).includes(key);
  let hits = info.moves.filter(hit);
  if (hits.length > 1) {
    const [r, i] = key.split(",").map(Number);
    const filled = hits.filter((m) => { const c = parseBoard(m.position).rows[r][i]; return c !== "-" && c !== "."; });
    if (filled.length) hits = filled;
  }
  document.querySelectorAll(".move").forEach((b) => b.classList.toggle("pick", hits.length > 1 && hits.some((m) => m.move === b.dataset.move)));
  if (hits.length === 1) play(hits[0]);
}

function highlight(cells) {
  document.querySelectorAll("#board .cell").forEach((c) => c.classList.toggle("hot", cells.includes(c.dataset.cell)));
}

function renderMoves(info) {
  const el = $("moves");
  el.replaceChildren();
  if (!info.moves.length) {
    el.textContent = state.game.puzzle ? (info.value === "win" ? "solved" : "dead end") : "game over";
    return;
  }
  for (const m of info.moves) {
    const [v, r] = forMover(m);
    const b = document.createElement("button");
    b.className = `move v-${v}` + (isBest(info, m) ? " best" : "");
    b.dataset.move = m.move; b.dataset.value = v; b.dataset.remoteness = r === null ? "" : r;
    b.title = `-> ${m.position}`;
    b.innerHTML = "";
    b.append(m.move);
    const s = document.createElement("small"); s.textContent = word(v, r); b.append(s);
    b.addEventListener("click", () => play(m));
    b.addEventListener("mouseenter", () => highlight(changed(info.position, m.position)));
    b.addEventListener("mouseleave", () => highlight([]));
    el.appendChild(b);
  }
}

function renderStatus(info) {
  const el = $("status");
  el.replaceChildren();
  const who = state.game.puzzle ? "" : `${side(state.history.length - 1)} to move: `;
  el.append(`ply ${state.history.length - 1}, ${who}`);
  const v = document.createElement("span");
  v.className = "value"; v.style.color = COLOURS[info.value];
  v.textContent = word(info.value, info.remoteness);
  el.append(v);
  if (!info.moves.length) el.append(" (game over)");
  $("position").textContent = info.position;
  $("position-input").value = info.position;
  $("undo").disabled = state.history.length < 2;
  $("restart").disabled = atStart();
  const list = $("plies");
  list.replaceChildren();
  state.moves.forEach((mv, i) => {
    const li = document.createElement("li");
    const after = state.history[i + 1];
    const who = state.game.puzzle ? "" : `${side(i)} `;
    li.textContent = `${who}${mv} -> ${after.position}  ${word(after.value, after.remoteness)}`;
    list.appendChild(li);
  });
}

// Value history: one row per ply, top to bottom. The left half is the first player's, the
// right half the second's: each position is a dot on the side of the player to move,
// coloured by its value for that player; remoteness 0 at the outer edge, growing toward the
// centre line, where draws (no remoteness) sit.
function renderChart() {
  const svg = $("chart"), NS = "http://www.w3.org/2000/svg";
  const W = 420, top = 34, rowH = 22, n = state.history.length;
  const H = Math.max(170, top + rowH * (n + 1));
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.style.height = `${H}px`;
  svg.replaceChildren();
  const mk = (tag, attrs, text) => {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    svg.appendChild(e); return e;
  };
  const maxR = Math.max(1, ...state.history.map((h) => h.remoteness || 0));
  const mid = W / 2, half = W / 2 - 24, one = !!state.game.puzzle;
  const x = (s, r) => {
    if (r === null) return mid;
    const d = half * (1 - r / (maxR + 1));  // from the centre: half at 0, the centre for draws
    return s === "first" ? mid - d : mid + d;
  };
  mk("line", { class: "mid", x1: mid, y1: top - 8, x2: mid, y2: H - 6 });
  mk("text", { x: 8, y: 14 }, one ? "player" : "first player");
  if (!one) mk("text", { x: W - 8, y: 14, "text-anchor": "end" }, "second player");
  for (const r of new Set([0, Math.round(maxR / 2), maxR])) {
    mk("text", { x: x("first", r), y: 28, "text-anchor": "middle" }, String(r));
    if (!one && r !== maxR) mk("text", { x: x("second", r), y: 28, "text-anchor": "middle" }, String(r));
  }
  if (!one) mk("text", { x: mid + 3, y: H - 8 }, "D");
  const pts = state.history.map((h, i) => [x(side(i), h.remoteness), top + rowH * (i + 0.5)]);
  if (n > 1) mk("polyline", { class: "trail", points: pts.map((p) => p.join(",")).join(" ") });
  state.history.forEach((h, i) => {
    mk("line", { class: "axis", x1: 6, y1: pts[i][1], x2: W - 6, y2: pts[i][1], "stroke-width": 0.5 });
    mk("text", { x: 4, y: pts[i][1] - 3 }, String(i));
    const c = mk("circle", { class: `dot v-${h.value}`, cx: pts[i][0], cy: pts[i][1], r: 6,
      fill: COLOURS[h.value], "data-ply": i, "data-side": side(i), "data-value": h.value,
      "data-remoteness": h.remoteness === null ? "" : h.remoteness });
    const t = document.createElementNS(NS, "title");
    t.textContent = `ply ${i}: ${side(i)} to move, ${word(h.value, h.remoteness)}`;
    c.appendChild(t);
  });
}

function render() {
  if (!state.history.length) return;
  const info = current();
  renderBoard(info); renderMoves(info); renderStatus(info); renderChart();
  document.body.dataset.ply = String(state.history.length - 1);
}

async function init() {
  $("undo").addEventListener("click", undo);
  $("restart").addEventListener("click", restart);
  $("goto").addEventListener("submit", (e) => { e.preventDefault(); goTo($("position-input").value.trim()); });
  $("game").addEventListener("change", (e) => choose(Number(e.target.value)));
  const res = await fetch("/api/games");
  state.games = await res.json();
  if (!state.games.length) { showError("no solved games in this database root: run `gsolve GAME` first"); return; }
  state.games.forEach((g, i) => {
    const o = document.createElement("option");
    o.value = i; o.textContent = `${g.title}${g.variant ? ` (${g.variant})` : ""}`;
    $("game").appendChild(o);
  });
  const want = new URLSearchParams(location.search);
  let pick = state.games.findIndex((g) => g.game === want.get("game") && (!want.has("variant") || g.variant === want.get("variant")));
  if (pick < 0) pick = 0;
  $("game").value = String(pick);
  await choose(pick);
}

init();
