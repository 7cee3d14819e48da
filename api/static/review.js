// The referee's console: the shots (kept live from the stream), one shot's replay (its clip in step with the
// drawing and the timeline, frame by frame) and a control for every operator input. The operator token is
// asked once and kept in this tab's session storage; it goes in a header, never in a URL.
"use strict";

const TOKEN_KEY = "tableref-operator-token";
const console_ = {
  selected: null,
  pack: null,
  state: null,
  clipUrl: null,
  lastShot: null,
};

// ---- the token ----------------------------------------------------------------------------------------------
function token() { return sessionStorage.getItem(TOKEN_KEY) || ""; }

function showToken() {
  const has = !!token();
  document.getElementById("token").hidden = has;
  document.getElementById("token-save").hidden = has;
  document.getElementById("token-forget").hidden = !has;
  document.getElementById("token-state").textContent = has ? "token set for this tab" : "needed for inputs and replays";
}

function useToken() {
  const field = document.getElementById("token");
  const value = field.value.trim();
  if (!value) { field.focus(); return; }
  sessionStorage.setItem(TOKEN_KEY, value);
  field.value = "";
  showToken();
  if (console_.selected !== null) loadClip(console_.pack);
}

function forgetToken() {
  sessionStorage.removeItem(TOKEN_KEY);
  showToken();
}

// ---- names of balls in the controls ------------------------------------------------------------------------
const LANDMARKS = (L, W) => [
  ["the house-left corner", 0, 0], ["the house-right corner", 0, W], ["the left middle pocket", L / 2, 0],
  ["the right middle pocket", L / 2, W], ["the pyramid-left corner", L, 0], ["the pyramid-right corner", L, W],
  ["the front spot", L / 4, W / 2], ["the centre spot", L / 2, W / 2], ["the pyramid spot", 3 * L / 4, W / 2],
];

// A ball the camera could not number is named by its colour (in a coloured set) and where it lies: the referee
// sees it there.
function ballOptions(balls) {
  const t = (console_.pack && console_.pack.table) || { length_mm: 3569, width_mm: 1778 };
  const marks = LANDMARKS(t.length_mm, t.width_mm);
  const seen = {};
  return balls.map((b) => {
    let label = Names.ball(b.id);
    if (/^t\d+$/.test(b.id)) {
      label += b.pos ? " near " + marks.reduce((best, m) => {
        const d = Math.hypot(m[1] - b.pos[0], m[2] - b.pos[1]);
        return d < best[1] ? [m[0], d] : best;
      }, ["", Infinity])[0] : " (potted)";
    }
    seen[label] = (seen[label] || 0) + 1;
    if (seen[label] > 1) label += " (" + seen[label] + ")";
    return { value: b.id, label: label.charAt(0).toUpperCase() + label.slice(1) };
  });
}

function fill(select, options, keep = true) {
  const old = select.value;
  select.textContent = "";
  for (const o of options) {
    const opt = document.createElement("option");
    opt.value = o.value;
    opt.textContent = o.label;
    select.appendChild(opt);
  }
  if (keep && options.some((o) => o.value === old)) select.value = old;
}

function fillBallControls() {
  const onTable = ((console_.state && console_.state.balls) || []).map((b) => ({ id: b.id, pos: b.pos }));
  const objects = onTable.filter((b) => b.id !== "cue");
  const potted = console_.pack ? console_.pack.events.filter((e) => e.type === "pot").map((e) => ({ id: e.ball })) : [];
  for (const sel of document.querySelectorAll("select.balls-on-table")) fill(sel, ballOptions(objects));
  const any = onTable.concat(potted.filter((p) => !onTable.some((b) => b.id === p.id)));
  for (const sel of document.querySelectorAll("select.balls-any")) fill(sel, ballOptions(any));
  fill(document.getElementById("void-ball"), ballOptions(potted));
}

function fillStaticControls() {
  const info = Names.info;
  fill(document.getElementById("fs-game"), Object.entries(info.games || {}).map(([v, l]) => ({ value: v, label: l })));
  if (info.game) document.getElementById("fs-game").value = info.game;
  const pockets = Object.entries(info.pockets_short || {}).map(([v, l]) => ({ value: v, label: l }));
  for (const sel of document.querySelectorAll("select.pockets")) fill(sel, pockets);
  fill(document.getElementById("foul-code"),
    Object.entries(info.manual_fouls || {}).map(([v, l]) => ({ value: v, label: l })));
  const numbers = [{ value: "cue", label: "the cue ball" }];
  for (let n = 1; n <= 15; n++) numbers.push({ value: String(n), label: "number " + n });
  fill(document.getElementById("rename-to"), numbers);
}

function fillPlayerControls() {
  const players = ["A", "B"].map((s) => ({ value: s, label: Names.player(s) }));
  for (const sel of document.querySelectorAll("select.players")) fill(sel, players);
  fill(document.getElementById("fs-breaker"), players);
  const s = console_.state;
  if (s) document.getElementById("score").textContent = Names.score(s.score);
  // 001 2.2.6: a call may be changed before the stroke, the last one in force; a new call amends it.
  const waiting = ((s && s.referee_state && s.referee_state.inputs_waiting) || [])
    .filter((e) => e.type === "call" || e.type === "call_any");
  const next = s && s.shot ? (s.shot.index ?? ((s.shot.last ?? -1) + 1)) : 0;
  document.getElementById("call-send").textContent = waiting.length ? "Amend the call of shot " + (next + 1)
    : "Call for shot " + (next + 1);
  document.getElementById("call-in-force").textContent = waiting.length
    ? "In force: " + inputText(waiting[waiting.length - 1]) : "No call in force";
}

// ---- sending an input ----------------------------------------------------------------------------------------
function result(text, ok) {
  const el = document.getElementById("action-result");
  el.textContent = text;
  el.className = "result " + (ok ? "ok" : "refused");
}

async function send(record) {
  if (!token()) {
    result("Refused: enter the operator token first", false);
    document.getElementById("token").focus();
    return null;
  }
  let r;
  try {
    r = await fetch("/inputs", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Bearer " + token() },
      body: JSON.stringify(record),
    });
  } catch (e) {
    result("Refused: the service cannot be reached", false);
    return null;
  }
  const body = await r.json().catch(() => ({}));
  if (!r.ok) {
    const why = (typeof body.detail === "string" ? body.detail : "HTTP " + r.status).split("\n")[0]
      .replace(/^the referee refuses this input: /, "the referee refuses: ");
    result("Refused: " + Names.humanize(why), false);
    if (r.status === 401 || r.status === 403) forgetToken();
    return null;
  }
  const accepted = body.accepted || record;
  const verdicts = (body.messages || []).filter((m) => m.kind === "verdict").map((m) => m.data);
  await refresh();
  let text = "Accepted: " + inputText(accepted);
  const ref = console_.state && console_.state.referee_state;
  if (accepted.type === "concede" && ref && ref.frame_over) {
    // A concession is no ruling on a shot: the frame's result is what the referee wants to see (001 1.5.5).
    // The frame's last verdict carries it; a frame conceded before its first stroke has only the state.
    const v = verdicts.length ? verdicts[verdicts.length - 1] : ref;
    text += " → frame to " + Names.player(v.winner) + " · " + Names.score(v.score);
  } else if (!verdicts.length && ref && ref.frame_over && accepted.type === "rerack") {
    text += " → frame to " + Names.player(ref.winner) + " · " + Names.score(ref.score);
  } else if (verdicts.length) {
    const v = verdicts[verdicts.length - 1];
    text += " → re-judged shot " + (v.shot + 1) + ": " + verdictText(v) + " · " + Names.score(v.score) +
      (v.next_player && !v.frame_over ? " · next: " + Names.player(v.next_player) : "");
  } else if (accepted.shot != null && accepted.type !== "frame_start") {
    text += " · for shot " + (accepted.shot + 1) + "; no verdict changed";
  } else {
    text += " · no verdict changed";
  }
  result(text, true);
  return body;
}

function selectedShot() { return console_.selected; }

function bindControls() {
  const $ = (id) => document.getElementById(id);
  $("token-save").onclick = useToken;
  $("token").onkeydown = (e) => { if (e.key === "Enter") useToken(); };
  $("token-forget").onclick = forgetToken;
  $("fs-send").onclick = () => {
    const players = {};
    if ($("fs-a").value.trim()) players.A = $("fs-a").value.trim();
    if ($("fs-b").value.trim()) players.B = $("fs-b").value.trim();
    const rec = { type: "frame_start", game: $("fs-game").value, breaker: $("fs-breaker").value };
    if (Object.keys(players).length) rec.players = players;
    send(rec);
  };
  $("call-send").onclick = () => send({ type: "call", ball: $("call-ball").value, pocket: $("call-pocket").value });
  $("cue-call-send").onclick = () => send({ type: "call", cue_pocket: $("cue-pocket").value });
  $("call-any").onclick = () => send({ type: "call_any" });
  $("foul-send").onclick = () => send({ type: "manual_foul", shot: selectedShot(), code: $("foul-code").value });
  $("playon-send").onclick = () => send({ type: "play_on", shot: selectedShot(), player: $("playon-player").value });
  $("void-send").onclick = () => {
    if (!$("void-ball").value) { result("Refused: no pot in the selected shot to void", false); return; }
    send({ type: "void_pot", shot: selectedShot(), ball: $("void-ball").value });
  };
  $("rename-send").onclick = () => send({ type: "rename", ball: $("rename-ball").value, to: $("rename-to").value });
  $("reorder-send").onclick = () => send({ type: "reorder", ball: $("reorder-ball").value });
  $("third-send").onclick = () => {
    const balls = Array.from($("third-balls").selectedOptions).map((o) => o.value);
    if (!balls.length) { result("Refused: choose the third balls first", false); return; }
    send({ type: "third_ball", balls });
  };
  $("rerack").onclick = () => send({ type: "rerack" });
  $("placement-warning").onclick = () => send({ type: "placement_warning" });
  $("concede-send").onclick = () => send({ type: "concede", player: $("concede-player").value });
  $("publish-clip").onclick = publishClip;
  $("play").onclick = () => { const v = $("pack-clip"); if (v.paused) v.play(); else v.pause(); };
  $("step-back").onclick = () => step(-1);
  $("step-fwd").onclick = () => step(1);
}

async function publishClip() {
  const n = selectedShot();
  if (n === null) return;
  if (!token()) { result("Refused: enter the operator token first", false); return; }
  const r = await fetch("/shots/" + n + "/clip/publish", { method: "POST", headers: { Authorization: "Bearer " + token() } });
  const body = await r.json().catch(() => ({}));
  if (r.ok) result("Published: the clip of shot " + (n + 1) + " is open to anyone at /shots/" + n + "/clip", true);
  else result("Refused: " + (body.detail || "HTTP " + r.status), false);
}

// ---- the shot list and the pack ---------------------------------------------------------------------------
async function loadShots() {
  const shots = await (await fetch("/shots")).json();
  const body = document.querySelector("#shots tbody");
  body.textContent = "";
  document.getElementById("empty").hidden = shots.length > 0;
  console_.lastShot = shots.length ? shots[shots.length - 1].shot : null;
  for (const s of shots) {
    const tr = document.createElement("tr");
    tr.dataset.shot = s.shot;
    const call = s.legal === null ? "—" : s.fouls.length ? "foul: " + s.fouls.map((c) => c.replace(/_/g, " ")).join(", ")
      : s.counted.length ? "counted " + Names.balls(s.counted) : "legal";
    for (const text of [s.shot + 1, s.game_frame, s.player ? Names.player(s.player) : "",
      s.t_start == null ? "" : s.t_start.toFixed(2), call]) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.appendChild(td);
    }
    if (s.fouls.length) tr.lastChild.className = "foul";
    if (s.shot === console_.selected) tr.classList.add("selected");
    tr.onclick = () => showShot(s.shot);
    body.appendChild(tr);
  }
}

async function showShot(n) {
  const fresh = console_.selected !== n;
  console_.selected = n;
  document.querySelectorAll("#shots tbody tr").forEach((tr) => tr.classList.toggle("selected", +tr.dataset.shot === n));
  const p = await (await fetch("/shots/" + n)).json();
  console_.pack = p;
  document.getElementById("pack").hidden = false;
  document.getElementById("pack-title").textContent = "Shot " + (p.shot + 1) + " · frame " + p.game_frame +
    (p.player ? " · " + Names.player(p.player) : "");
  const v = document.getElementById("pack-verdict");
  v.textContent = p.verdict ? verdictText(p.verdict) + " · " + Names.score(p.verdict.score) +
    (p.amendments ? " (amended)" : "") : "no verdict yet";
  v.className = "verdict" + (p.verdict && p.verdict.fouls.length ? " foul" : "");
  const notes = document.getElementById("pack-notes");
  notes.textContent = "";
  for (const text of p.notes || []) {
    const li = document.createElement("li");
    li.textContent = text;
    notes.appendChild(li);
  }
  const clauses = document.getElementById("pack-clauses");
  clauses.textContent = "";
  for (const f of (p.verdict && p.verdict.fouls) || []) {
    const li = document.createElement("li");
    li.textContent = f.rule + ": " + Names.humanize(f.text || f.code);
    clauses.appendChild(li);
  }
  for (const id of ["foul-send", "playon-send", "void-send", "publish-clip"]) {
    document.getElementById(id).disabled = false;
  }
  const img = document.getElementById("pack-picture");
  img.hidden = false;
  document.getElementById("pack-nopicture").hidden = true;
  img.onerror = () => { img.hidden = true; document.getElementById("pack-nopicture").hidden = false; };
  img.onload = () => drawMarks();
  img.src = p.picture + "?t=" + Date.now();
  if (fresh) { loadClip(p); loadTrack(p); }
  buildTimeline(p);
  fillBallControls();
  document.getElementById("pack").dataset.shot = n;
}

function timeSpan(p) {
  const t0 = p.t_start || 0;
  return { t0, span: Math.max((p.t_end || t0 + 1) - t0, 0.001) };
}

function buildTimeline(p) {
  const { t0, span } = timeSpan(p);
  const tl = document.getElementById("timeline");
  tl.querySelectorAll(".mark").forEach((m) => m.remove());
  const body = document.querySelector("#events tbody");
  body.textContent = "";
  const rows = p.events.concat(p.inputs).slice().sort((a, b) => (a.t ?? -1) - (b.t ?? -1));
  for (const e of rows) {
    const tr = document.createElement("tr");
    if (e.review) tr.className = "review";
    tr.dataset.t = e.t == null ? "" : e.t;
    const conf = e.confidence === undefined ? 1 : e.confidence;
    for (const text of [e.t == null ? "" : e.t.toFixed(3), e.frame == null ? "" : e.frame, eventText(e),
      conf.toFixed(2)]) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.appendChild(td);
    }
    if (e.t != null) tr.onclick = () => seek(e.t);
    body.appendChild(tr);
    if (e.t != null) {
      const m = document.createElement("div");
      m.className = "mark " + e.type + (e.review ? " review" : "");
      m.style.left = Math.min(Math.max((e.t - t0) / span, 0), 1) * 98 + "%";
      m.title = eventText(e) + " @ " + e.t.toFixed(3) + " s";
      m.onclick = () => seek(e.t);
      tl.appendChild(m);
    }
  }
  const summary = p.summary || "";
  const flagged = p.events.filter((e) => e.review).length;
  document.getElementById("pack-summary").textContent = (summary ? summary + " · " : "") +
    p.events.length + " events" + (flagged ? ", " + flagged + " flagged for review" : "") + " (show)";
  syncTo(p.t_start || 0);
}

// ---- the replay --------------------------------------------------------------------------------------------
async function loadClip(p) {
  const video = document.getElementById("pack-clip");
  const status = document.getElementById("clip-status");
  for (const id of ["play", "step-back", "step-fwd"]) document.getElementById(id).disabled = true;
  video.hidden = true;
  delete video.dataset.ready;
  if (console_.clipUrl) { URL.revokeObjectURL(console_.clipUrl); console_.clipUrl = null; }
  const headers = token() ? { Authorization: "Bearer " + token() } : {};
  status.textContent = "Loading the replay…";
  let r;
  try {
    // A video element cannot send the token: the clip is fetched here and played from memory.
    r = await fetch(p.clip, { headers });
  } catch (e) {
    status.textContent = "The replay cannot be loaded: the service cannot be reached";
    return;
  }
  if (console_.selected !== p.shot) return;  // another shot was chosen meanwhile
  if (!r.ok) {
    const body = await r.json().catch(() => ({}));
    status.textContent = r.status === 401 ? "Enter the operator token to see the replay"
      : "No replay: " + (body.detail || "HTTP " + r.status);
    return;
  }
  console_.clipUrl = URL.createObjectURL(await r.blob());
  video.src = console_.clipUrl;
  video.hidden = false;
  status.textContent = "";
  video.onloadeddata = () => {
    for (const id of ["play", "step-back", "step-fwd"]) document.getElementById(id).disabled = false;
    video.dataset.ready = "1";
  };
  video.ontimeupdate = () => syncTo(videoToMatch(video.currentTime));
  video.onplay = () => { document.getElementById("play").textContent = "❚❚ pause"; tick(); };
  video.onpause = () => { document.getElementById("play").textContent = "▶ play"; };
  video.onseeked = () => syncTo(videoToMatch(video.currentTime));
}

async function loadTrack(p) {
  console_.track = [];
  try {
    const r = await fetch("/shots/" + p.shot + "/track");
    if (r.ok && console_.selected === p.shot) console_.track = (await r.json()).samples || [];
  } catch (e) { /* the drawing still shows the paths */ }
  drawMarks();
}

// The last snapshot of the balls at or before a video frame (snapshots are taken when a ball moved).
function snapshotAt(frame) {
  const s = console_.track || [];
  let lo = 0, hi = s.length - 1, best = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (s[mid][0] <= frame) { best = s[mid]; lo = mid + 1; } else hi = mid - 1;
  }
  return best;
}

function fps() { return (console_.pack && console_.pack.fps) || 25; }
function videoToMatch(vt) { return vt + ((console_.pack && console_.pack.clip_t0) || 0); }
function matchToVideo(t) { return Math.max(t - ((console_.pack && console_.pack.clip_t0) || 0), 0); }

function tick() {
  const video = document.getElementById("pack-clip");
  if (video.paused || video.ended) return;
  syncTo(videoToMatch(video.currentTime));
  requestAnimationFrame(tick);
}

function step(frames) {
  const video = document.getElementById("pack-clip");
  video.pause();
  // Frame k is shown from k/fps to (k+1)/fps; land in its middle: an edge may show either neighbour.
  const frame = Math.floor(video.currentTime * fps() + 1e-6) + frames;
  video.currentTime = Math.max(frame, 0) / fps() + 0.5 / fps();
}

function seek(t) {
  const video = document.getElementById("pack-clip");
  if (!video.hidden && video.dataset.ready) {
    video.pause();
    video.currentTime = matchToVideo(t) + 0.5 / fps();
  } else {
    syncTo(t);
  }
}

// The timeline's cursor, the events seen so far and the drawing's marks follow the video's time.
function syncTo(t) {
  const p = console_.pack;
  if (!p) return;
  const { t0, span } = timeSpan(p);
  const cursor = document.getElementById("cursor");
  cursor.style.left = Math.min(Math.max((t - t0) / span, 0), 1) * 98 + "%";
  cursor.dataset.t = t.toFixed(3);
  const frame = Math.floor(t * fps() + 1e-6);
  document.getElementById("replay-time").textContent = "t " + t.toFixed(3) + " s · frame " + frame;
  document.getElementById("replay-time").dataset.frame = frame;
  let now = null;
  for (const tr of document.querySelectorAll("#events tbody tr")) {
    const et = tr.dataset.t === "" ? null : +tr.dataset.t;
    const past = et === null || et <= t + 1e-6;
    tr.classList.toggle("past", past);
    tr.classList.toggle("future", !past);
    tr.classList.remove("now");
    if (past && et !== null) now = tr;
  }
  if (now) now.classList.add("now");
  console_.syncT = t;
  drawMarks();
}

function drawMarks() {
  const p = console_.pack;
  const img = document.getElementById("pack-picture");
  const canvas = document.getElementById("pack-marks");
  if (!p || !p.table || !img.naturalWidth) return;
  canvas.width = img.clientWidth;
  canvas.height = img.clientHeight;
  const k = p.table.px_per_mm * (img.clientWidth / img.naturalWidth);
  const m = p.table.margin_mm;
  const at = (xy) => [(xy[0] + m) * k, (xy[1] + m) * k];
  const ctx = canvas.getContext("2d");
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  const t = console_.syncT ?? (p.t_start || 0);
  const seen = p.events.filter((e) => e.t != null && e.t <= t + 1e-6 && e.pos);
  seen.forEach((e, i) => {
    const [x, y] = at(e.pos);
    const last = i === seen.length - 1;
    ctx.beginPath();
    ctx.arc(x, y, last ? 12 : 6, 0, 2 * Math.PI);
    ctx.lineWidth = last ? 3 : 2;
    ctx.strokeStyle = e.type === "contact" ? "#ffd700" : e.type === "cushion" ? "#3ca0ff" : "#ff5050";
    ctx.stroke();
  });
  canvas.dataset.marks = seen.length;
  // The balls where they were at this instant, over the drawing of their whole paths.
  const snap = snapshotAt(Math.floor(t * fps() + 1e-6));
  const radius = Math.max((m / 2.2) * k, 3);
  canvas.dataset.balls = snap ? Object.keys(snap[1]).length : 0;
  canvas.dataset.snapshot = snap ? snap[0] : "";
  if (!snap) return;
  ctx.font = Math.round(radius * 1.3) + "px sans-serif";
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  for (const [ball, pos] of Object.entries(snap[1])) {
    const [x, y] = at(pos);
    ctx.beginPath();
    ctx.arc(x, y, radius, 0, 2 * Math.PI);
    ctx.fillStyle = ball === "cue" ? "#ffffff" : "#f3e2b3";
    ctx.fill();
    ctx.lineWidth = 1;
    ctx.strokeStyle = "#000";
    ctx.stroke();
    if (ball !== "cue" && !/^t\d+$/.test(ball) && radius >= 5) {
      ctx.fillStyle = "#000";
      ctx.fillText(ball, x, y + 0.5);
    }
  }
}

// ---- start-up and the stream ---------------------------------------------------------------------------------
async function refresh() {
  console_.state = await (await fetch("/state")).json();
  Names.setPlayers(console_.state.players);
  Names.setLooks(console_.state.looks);
  document.getElementById("match").textContent = "match " + console_.state.match + " · " +
    (Names.info.game_name || console_.state.game) + " (" + (Names.info.target_text || "") + ") · " +
    Names.player("A") + " vs " + Names.player("B");
  fillPlayerControls();
  fillBallControls();
  const list = document.getElementById("warnings");
  list.textContent = "";
  for (const w of console_.state.warnings || []) {
    const li = document.createElement("li");
    li.textContent = Names.humanize(w.text || w.code) + (w.rule ? " (" + w.rule + ")" : "");
    list.appendChild(li);
  }
}

async function start() {
  bindControls();
  showToken();
  await Names.load();
  fillStaticControls();
  await refresh();
  await loadShots();
  const params = new URLSearchParams(location.search);
  if (params.has("shot")) showShot(+params.get("shot"));
  watchSource((text) => {
    const el = document.getElementById("source");
    el.textContent = text;
    el.hidden = !text;
  });
  let pending = null;
  let packStale = false;
  openStream(console_.state.seq, (msg) => {
    const d = msg.data;
    if (msg.kind === "verdict" || msg.kind === "input" || msg.kind === "state" ||
      (msg.kind === "event" && (d.type === "shot_start" || d.type === "shot_end"))) {
      // A verdict or an input may change the shot on show: its pack is read again once the burst is over.
      packStale = packStale || msg.kind === "verdict" || msg.kind === "input";
      clearTimeout(pending);
      pending = setTimeout(async () => {
        const again = packStale;
        packStale = false;
        await refresh();
        await loadShots();
        if (console_.selected !== null && again) showShot(console_.selected);
      }, 200);
    }
  });
}

start();
