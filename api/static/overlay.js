// The overlay: filled from /state once, then kept live from the stream with no reload. Its query sets the
// placement, size and theme for streaming software: ?pos=bottom-left&scale=1.5&theme=light.
"use strict";

const POSITIONS = ["bottom-center", "bottom-left", "bottom-right", "top-center", "top-left", "top-right"];

function applySettings(query) {
  const q = new URLSearchParams(query);
  const pos = POSITIONS.includes(q.get("pos")) ? q.get("pos") : "bottom-center";
  const theme = q.get("theme") === "light" ? "light" : "dark";
  const scale = Math.min(Math.max(parseFloat(q.get("scale")) || 1, 0.5), 3);
  document.body.className = "pos-" + pos + " theme-" + theme;
  document.getElementById("stage").style.setProperty("--scale", String(scale));
}

const overlay = {
  frame: 1,
  apply(state) {
    if (state.players) Names.setPlayers(state.players);
    if (state.looks) Names.setLooks(state.looks);
    for (const side of ["A", "B"]) {
      document.getElementById("name-" + side).textContent = Names.player(side);
      if (state.score) document.getElementById("score-" + side).textContent = state.score[side];
      if (state.player) document.getElementById("player-" + side).classList.toggle("at-table", state.player === side);
    }
    if (state.game_frame) this.frame = state.game_frame;
    const match = state.referee_state && state.referee_state.match;
    const frames = match && match.frames_to_win > 1
      ? "frames " + match.frames_won.A + " : " + match.frames_won.B + " · first to " + match.frames_to_win
      : "";
    document.getElementById("frame").textContent = "frame " + this.frame + (frames ? " · " + frames : "");
  },
  verdict(v) {
    const el = document.getElementById("verdict");
    el.textContent = verdictText(v);
    el.classList.toggle("foul", (v.fouls || []).length > 0);
    el.hidden = false;
    if (v.score) this.apply({ score: v.score, player: v.next_player });
  },
  async fouls() {
    // The protocol counts each player's fouls per frame (the penalty record a viewer follows).
    const proto = await (await fetch("/protocol")).json();
    const fr = (proto.frames || []).find((f) => f.n === this.frame) || { fouls: { A: 0, B: 0 } };
    for (const side of ["A", "B"]) {
      const n = fr.fouls[side] || 0;
      document.getElementById("fouls-" + side).textContent = n ? n + (n === 1 ? " foul" : " fouls") : "";
    }
  },
};

async function start() {
  applySettings(location.search);
  const info = await Names.load();
  document.getElementById("game").textContent = info.game_name || "";
  document.getElementById("target").textContent = info.target_text || "";
  const state = await (await fetch("/state")).json();
  overlay.apply(state);
  if (state.last_verdict) overlay.verdict(state.last_verdict);
  overlay.fouls();
  document.getElementById("overlay").dataset.seq = state.seq;
  openStream(state.seq, (msg) => {
    if (msg.kind === "state") overlay.apply(msg.data);
    else if (msg.kind === "verdict") {
      overlay.verdict(msg.data);
      overlay.fouls();
      // A frame won changes the match's frame count, which only the referee's full state holds.
      if (msg.data.frame_over) fetch("/state").then((r) => r.json()).then((s) => overlay.apply(s));
    }
    else if (msg.kind === "input" && msg.data.type === "frame_start") {
      overlay.apply({ players: msg.data.players || {} });
      overlay.fouls();
    }
    document.getElementById("overlay").dataset.seq = msg.seq;
  }, (s) => { document.getElementById("status").textContent = s; });
  // Every 5 s: many overlays may watch one table, and an outage lasts seconds at least.
  watchSource((text) => {
    const el = document.getElementById("source");
    el.textContent = text;
    el.hidden = !text;
  }, 5000);
}

start();
