// The overlay: filled from /state once, then kept live from the stream with no reload.
"use strict";

const overlay = {
  players: { A: "A", B: "B" },
  apply(state) {
    if (state.players) this.players = state.players;
    for (const side of ["A", "B"]) {
      document.getElementById("name-" + side).textContent = this.players[side] || side;
      if (state.score) document.getElementById("score-" + side).textContent = state.score[side];
      document.getElementById("player-" + side).classList.toggle("at-table", state.player === side);
    }
    if (state.game) document.getElementById("game").textContent = state.game;
    if (state.game_frame) document.getElementById("frame").textContent = "frame " + state.game_frame;
  },
  verdict(v) {
    const el = document.getElementById("verdict");
    el.textContent = verdictText(v);
    el.classList.toggle("foul", (v.fouls || []).length > 0);
    el.hidden = false;
    if (v.score) this.apply({ score: v.score, player: v.next_player });
  },
};

async function start() {
  const state = await (await fetch("/state")).json();
  overlay.apply(state);
  if (state.last_verdict) overlay.verdict(state.last_verdict);
  document.getElementById("overlay").dataset.seq = state.seq;
  openStream(state.seq, (msg) => {
    if (msg.kind === "state") overlay.apply(msg.data);
    else if (msg.kind === "verdict") overlay.verdict(msg.data);
    document.getElementById("overlay").dataset.seq = msg.seq;
  }, (s) => { document.getElementById("status").textContent = s; });
}

start();
