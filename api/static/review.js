// The review page: the list of shots (kept live from the stream) and one shot's review pack.
"use strict";

let selected = null;

function describe(e) {
  const bits = [];
  if (e.balls) bits.push(e.balls.join(" → "));
  if (e.ball) bits.push(e.ball);
  if (e.to) bits.push("is " + e.to);  // a rename: "this ball is number 7"
  if (e.pocket) bits.push("into " + e.pocket);
  if (e.cushion) bits.push(e.cushion);
  if (e.line) bits.push(e.line + " " + e.direction);
  if (e.code) bits.push(e.code);
  return bits.join(" ");
}

async function loadShots() {
  const shots = await (await fetch("/shots")).json();
  const body = document.querySelector("#shots tbody");
  body.textContent = "";
  document.getElementById("empty").hidden = shots.length > 0;
  for (const s of shots) {
    const tr = document.createElement("tr");
    tr.dataset.shot = s.shot;
    const call = s.legal === null ? "—" : s.fouls.length ? "foul: " + s.fouls.join(", ")
      : s.counted.length ? "counted " + s.counted.join(", ") : "legal";
    for (const text of [s.shot, s.game_frame, s.player || "", s.t_start == null ? "" : s.t_start.toFixed(2), call]) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.appendChild(td);
    }
    if (s.fouls.length) tr.lastChild.className = "foul";
    if (s.shot === selected) tr.classList.add("selected");
    tr.onclick = () => showShot(s.shot);
    body.appendChild(tr);
  }
}

async function showShot(n) {
  selected = n;
  document.querySelectorAll("#shots tbody tr").forEach((tr) => tr.classList.toggle("selected", +tr.dataset.shot === n));
  const p = await (await fetch("/shots/" + n)).json();
  document.getElementById("pack").hidden = false;
  document.getElementById("pack-title").textContent = "Shot " + p.shot + " (frame " + p.game_frame + ")";
  const v = document.getElementById("pack-verdict");
  v.textContent = p.verdict ? verdictText(p.verdict) + (p.amendments ? " (amended)" : "") : "no verdict yet";
  v.className = "verdict" + (p.verdict && p.verdict.fouls.length ? " foul" : "");
  const clauses = document.getElementById("pack-clauses");
  clauses.textContent = "";
  for (const f of (p.verdict && p.verdict.fouls) || []) {
    const li = document.createElement("li");
    li.textContent = f.rule + ": " + (f.text || f.code);
    clauses.appendChild(li);
  }
  const img = document.getElementById("pack-picture");
  img.hidden = false;
  document.getElementById("pack-nopicture").hidden = true;
  img.onerror = () => { img.hidden = true; document.getElementById("pack-nopicture").hidden = false; };
  img.src = p.picture + "?t=" + Date.now();
  const clip = document.getElementById("pack-clip");
  fetch(p.clip, { method: "HEAD" }).then((r) => { clip.hidden = !r.ok; if (r.ok) clip.src = p.clip; });
  const t0 = p.t_start || 0;
  const span = Math.max((p.t_end || t0 + 1) - t0, 0.001);
  const tl = document.getElementById("timeline");
  tl.textContent = "";
  const body = document.querySelector("#events tbody");
  body.textContent = "";
  for (const e of p.events.concat(p.inputs)) {
    const tr = document.createElement("tr");
    if (e.review) tr.className = "review";
    const conf = e.confidence === undefined ? 1 : e.confidence;
    for (const text of [e.t == null ? "" : e.t.toFixed(3), e.frame == null ? "" : e.frame, e.type, describe(e),
      conf.toFixed(2)]) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.appendChild(td);
    }
    body.appendChild(tr);
    if (e.t != null) {
      const m = document.createElement("div");
      m.className = "mark " + e.type + (e.review ? " review" : "");
      m.style.left = Math.min(Math.max((e.t - t0) / span, 0), 1) * 98 + "%";
      m.title = e.type + " " + describe(e) + " @ " + e.t.toFixed(3) + " s";
      tl.appendChild(m);
    }
  }
  document.getElementById("pos-start").textContent = JSON.stringify(p.start_positions, null, 0).replace(/],/g, "],\n");
  document.getElementById("pos-end").textContent = JSON.stringify(p.end_positions, null, 0).replace(/],/g, "],\n");
  document.getElementById("pack").dataset.shot = n;
}

async function start() {
  const state = await (await fetch("/state")).json();
  document.getElementById("match").textContent = "match " + state.match + " · " + state.game + " · " +
    state.players.A + " vs " + state.players.B;
  await loadShots();
  const params = new URLSearchParams(location.search);
  if (params.has("shot")) showShot(+params.get("shot"));
  let pending = null;
  openStream(state.seq, (msg) => {
    const d = msg.data;
    if (msg.kind === "verdict" || (msg.kind === "event" && (d.type === "shot_start" || d.type === "shot_end"))) {
      clearTimeout(pending);
      pending = setTimeout(async () => {
        await loadShots();
        if (selected !== null && msg.kind === "verdict" && d.shot === selected) showShot(selected);
      }, 200);
    }
  });
}

start();
