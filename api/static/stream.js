// The service's stream for a page: a WebSocket that resumes after the last sequence number it saw.
"use strict";

function verdictText(v) {
  if (!v) return "";
  const fouls = v.fouls || [];
  if (fouls.length) {
    return "Foul: " + fouls.map((f) => (f.text || f.code) + (f.rule ? ", " + f.rule : "")).join("; ");
  }
  const parts = [];
  if ((v.counted || []).length) parts.push("Counted: " + v.counted.join(", "));
  if ((v.void || []).length) parts.push("Void: " + v.void.join(", "));
  if (!parts.length) parts.push("Legal shot");
  if (v.frame_over) parts.push("frame to " + (v.winner || "?"));
  return parts.join(" · ");
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
