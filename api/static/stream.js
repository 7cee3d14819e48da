// Shared by the pages: the service's stream (a WebSocket that resumes after the last sequence number it saw)
// and the names people read (api/names.py is the reference: balls by number or "a ball", players by name).
"use strict";

const Names = {
  info: { game_name: "", games: {}, pockets: {}, pockets_short: {}, manual_fouls: {}, target_text: "" },
  players: { A: "A", B: "B" },
  // What the balls the camera could not number look like ("t6" -> "yellow"), from /state and its messages.
  looks: {},
  async load() {
    try {
      const r = await fetch("/names");
      if (r.ok) this.info = await r.json();
    } catch (e) { /* the pages still work with the codes */ }
    return this.info;
  },
  setPlayers(p) { if (p) this.players = Object.assign({}, this.players, p); },
  setLooks(l) { if (l) this.looks = Object.assign({}, l); },
  // An unnamed player is shown by his side, never as a bare letter.
  player(side) {
    if (side !== "A" && side !== "B") return "—";
    const n = this.players[side] || side;
    return n === side ? "Player " + side : n;
  },
  // A tracker id (t6) means nothing to a viewer: such a ball is named by its colour in a coloured set
  // ("the yellow ball", "a red ball" when there are several), else it is "a ball".
  ball(id) {
    if (id == null) return "a ball";
    if (id === "cue") return "the cue ball";
    if (/^t\d+$/.test(id)) {
      const word = this.looks[id];
      if (!word) return "a ball";
      const alone = Object.values(this.looks).filter((w) => w === word).length === 1;
      return (alone ? "the " : (/^[aeiou]/.test(word) ? "an " : "a ")) + word + " ball";
    }
    return "ball " + id;
  },
  balls(list) {
    const named = [];
    const shades = {};
    let unnamed = 0;
    for (const b of list || []) {
      const word = /^t\d+$/.test(b) ? this.looks[b] : null;
      if (/^t\d+$/.test(b) && !word) unnamed += 1;
      else if (word) shades[word] = (shades[word] || 0) + 1;
      else named.push(this.ball(b).replace(/^the /, ""));
    }
    for (const [word, n] of Object.entries(shades)) {
      const alone = Object.values(this.looks).filter((w) => w === word).length === 1;
      named.push(n > 1 ? n + " " + word + " balls" : (alone ? "the " : (/^[aeiou]/.test(word) ? "an " : "a ")) + word + " ball");
    }
    if (unnamed) named.push(unnamed === 1 ? "a ball" : unnamed + " balls");
    if (!named.length) return "none";
    return named.length === 1 ? named[0] : named.slice(0, -1).join(", ") + " and " + named[named.length - 1];
  },
  // Tracker ids and game codes in a message (the engine's reasons name them) as a person reads them.
  humanize(text) {
    const id = "(cue|t\\d+|\\d+)";
    const plain = (x) => /^t\d+$/.test(x) && !this.looks[x];
    let out = String(text || "").replace(new RegExp("\\bballs " + id + " and " + id + "\\b", "g"), (m, a, b) =>
      plain(a) && plain(b) ? "two balls" : this.ball(a) + " and " + this.ball(b));
    out = out.replace(/\bball cue\b/g, "the cue ball").replace(/\b(?:[Bb]all )?(t\d+)\b/g, (m, t) => this.ball(t));
    const codes = Object.keys(this.info.games || {}).sort((a, b) => b.length - a.length);
    if (codes.length) {
      const re = new RegExp("(^|[^\\w-])(" + codes.map((c) => c.replace(/-/g, "\\-")).join("|") + ")(?![\\w-])", "g");
      out = out.replace(re, (m, pre, code) => pre + this.info.games[code]);
    }
    return out;
  },
  pocket(code) { return (this.info.pockets || {})[code] || code || ""; },
  game(code) { return (this.info.games || {})[code] || code || ""; },
  score(s) {
    s = s || {};
    return this.player("A") + " " + (s.A ?? 0) + " : " + (s.B ?? 0) + " " + this.player("B");
  },
};

function verdictText(v) {
  if (!v) return "";
  const fouls = v.fouls || [];
  let out;
  if (fouls.length) {
    out = "Foul: " + fouls.map((f) => Names.humanize(f.text || f.code) + (f.rule ? ", " + f.rule : "")).join("; ");
  } else {
    out = (v.counted || []).length ? "Counted: " + Names.balls(v.counted) : "Legal shot";
    if ((v.void || []).length) out += " · void: " + Names.balls(v.void);
  }
  if (v.frame_over) out += " · frame to " + Names.player(v.winner);
  return out;
}

function eventText(e) {
  const cushions = {
    house: "the house cushion", pyramid: "the pyramid cushion", "left-house": "the left cushion (house half)",
    "left-pyramid": "the left cushion (pyramid half)", "right-house": "the right cushion (house half)",
    "right-pyramid": "the right cushion (pyramid half)",
  };
  const lines = { house: "the house line", center: "the centre line", long: "the long line" };
  const b = Names.ball(e.ball);
  switch (e.type) {
    case "contact": return Names.ball((e.balls || [])[0]) + " hits " + Names.ball((e.balls || [])[1]);
    case "cushion": {
      const c = e.cushion || "";
      return b + " touches " + (c.startsWith("jaw:") ? "the jaw of the " + Names.pocket(c.slice(4)) : cushions[c] || c);
    }
    case "line_cross": return b + " crosses " + (lines[e.line] || e.line);
    case "pot": return b + " into the " + Names.pocket(e.pocket);
    case "shot_start": return b + " struck";
    case "shot_end": return "all balls at rest (" + Object.keys(e.positions || {}).length + " on the table)";
    case "off_table": return b + " left the table";
    case "disturbed": return b + " moved without a contact";
    default: return inputText(e);
  }
}

function inputText(e) {
  switch (e.type) {
    case "frame_start": {
      const p = Object.assign({}, Names.players, e.players || {});
      const n = p[e.breaker] && p[e.breaker] !== e.breaker ? p[e.breaker] : "Player " + e.breaker;
      return "new frame of " + Names.game(e.game) + ", " + n + " breaks";
    }
    case "call": return e.cue_pocket ? "call: the cue ball into the " + Names.pocket(e.cue_pocket)
      : "call: " + Names.ball(e.ball) + " into the " + Names.pocket(e.pocket);
    case "call_any": return "call: any ball (заказ с падающим)";
    case "reorder": return "game ball re-ordered: " + Names.ball(e.ball);
    case "third_ball": return "third balls announced: " + Names.balls(e.balls);
    case "manual_foul": return "foul called by the referee: " + ((Names.info.manual_fouls || {})[e.code] || e.code);
    case "play_on": return Names.player(e.player) + " plays on";
    case "rerack": return "re-rack ordered (001 2.1.16)";
    case "concede": return Names.player(e.player) + " concedes the frame";
    case "placement_warning": return "warned: the cue ball is placed outside the house (001 2.1.5в)";
    case "rename": return Names.ball(e.ball) + (e.to === "cue" ? " is the cue ball" : " is number " + e.to);
    case "void_pot": return "pot of " + Names.ball(e.ball) + " voided";
    default: return e.type;
  }
}

// The video source as a person reads it: nothing while it plays, the outage while it lasts (/state's source).
function sourceText(src) {
  if (!src) return "";
  if (src.status === "reconnecting" || src.state === "reconnecting") {
    return "camera lost" + (src.lost_s != null ? " " + Math.round(src.lost_s) + " s" : "") + ", reconnecting";
  }
  if (src.status === "failed") return "the source stopped" + (src.error ? ": " + String(src.error).split("\n")[0] : "");
  const live = src.kind === "camera" || src.kind === "url";
  if (live && (src.status === "starting" || src.state === "opening")) return "opening the camera";
  return "";
}

function watchSource(onText, everyMs = 3000) {
  async function poll() {
    try {
      const st = await (await fetch("/state")).json();
      onText(sourceText(st.source), st);
    } catch (e) { onText("the service cannot be reached", null); }
    setTimeout(poll, everyMs);
  }
  poll();
}

function openStream(since, onMessage, onStatus) {
  let last = since || 0;
  let delay = 500;
  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(proto + "//" + location.host + "/ws?since=" + last);
    ws.onopen = () => { delay = 500; onStatus && onStatus("live"); };
    ws.onmessage = (e) => {
      const msg = JSON.parse(e.data);
      if (msg.seq <= last) return;
      last = msg.seq;
      onMessage(msg);
    };
    ws.onclose = (e) => {
      onStatus && onStatus("reconnecting" + (e.reason ? " (" + e.reason + ")" : ""));
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 5000);
    };
  }
  connect();
}
