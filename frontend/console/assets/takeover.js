// The takeover page a capability link opens: one session's live view and
// its hand-back, nothing else. Its requests carry the link's cookie.
"use strict";

const base = location.pathname.replace(/\/[^/]*$/, "");
const $ = (id) => document.getElementById(id);
let view = { w: 0, h: 0, ws: null };
let deadline = null;

function over(msg) {
  $("over").textContent = msg;
  document.body.dataset.over = "1";
  for (const b of document.querySelectorAll("button")) b.disabled = true;
  if (view.ws) view.ws.close();
}

async function end(handBack) {
  const r = await fetch(base + "/api/end", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ hand_back: handBack }), credentials: "same-origin" });
  over(r.ok ? (handBack ? "Handed back to the agent. You can close this page." : "Cancelled. You can close this page.") : "This takeover is already over.");
}

function send(input) {
  if (view.ws && view.ws.readyState === WebSocket.OPEN) view.ws.send(JSON.stringify({ type: "input", ...input }));
}

function point(ev) {
  const r = $("live").getBoundingClientRect();
  return { x: (ev.clientX - r.left) * (view.w / r.width), y: (ev.clientY - r.top) * (view.h / r.height) };
}

async function start() {
  const r = await fetch(base + "/api/state", { credentials: "same-origin" });
  if (!r.ok) return over("This takeover link is over.");
  const st = await r.json();
  $("who").textContent = `${st.takeover.personality}: the agent asks for a human:`;
  $("reason").textContent = st.takeover.reason;
  deadline = Date.parse(st.takeover.deadline);
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + base + "/api/live");
  view.ws = ws;
  const img = $("live");
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.type === "frame") {
      view.w = msg.w; view.h = msg.h;
      img.src = "data:image/jpeg;base64," + msg.jpeg;
      img.dataset.seq = msg.seq;
    } else if (msg.type === "error") {
      $("live-error").textContent = msg.error.message;
    }
  };
  ws.onclose = () => { if (!document.body.dataset.over) $("live-error").textContent = "live view closed"; };
}

setInterval(() => {
  if (deadline) $("left").textContent = "time left: " + Math.max(0, Math.round((deadline - Date.now()) / 1000)) + "s";
}, 1000);

document.addEventListener("DOMContentLoaded", () => {
  const img = $("live");
  img.addEventListener("click", (ev) => { if (view.w) { img.focus(); send({ kind: "click", ...point(ev) }); } });
  img.addEventListener("keydown", (ev) => {
    ev.preventDefault();
    if (ev.key.length === 1 && !ev.ctrlKey && !ev.metaKey && !ev.altKey) send({ kind: "type", text: ev.key });
    else send({ kind: "key", key: ev.key });
  });
  $("live-type").addEventListener("click", () => { send({ kind: "type", text: $("live-text").value }); $("live-text").value = ""; });
  for (const b of document.querySelectorAll(".live-key")) b.addEventListener("click", () => send({ kind: "key", key: b.dataset.key }));
  $("handback").addEventListener("click", () => end(true));
  $("cancel").addEventListener("click", () => end(false));
  start();
});
