// The operator console: one page, fed by the state WebSocket (/ws), with a
// live view over its own WebSocket (/live) while someone watches. Text
// from the host (reasons, titles, URLs) is set as textContent, never as
// HTML.
"use strict";

const base = location.pathname.replace(/\/$/, "");
const wsBase = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + base;
const $ = (id) => document.getElementById(id);
let state = null;
let watching = null; // {personality, session, ws, w, h}

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k ?? "")));
  return e;
}

async function post(path, body) {
  const r = await fetch(base + path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), credentials: "same-origin" });
  if (!r.ok) {
    const j = await r.json().catch(() => ({}));
    alert((j.error && j.error.message) || r.statusText);
  }
}

function connect() {
  const ws = new WebSocket(wsBase + "/ws");
  ws.onopen = () => { $("link").textContent = "connected"; document.body.dataset.connected = "1"; };
  ws.onmessage = (m) => { state = JSON.parse(m.data); render(); };
  ws.onclose = () => {
    $("link").textContent = "disconnected: retrying";
    delete document.body.dataset.connected;
    setTimeout(connect, 2000);
  };
}

// A part is rebuilt only when its data changed: rebuilding a button while
// the operator clicks it would swallow the click.
const shown = {};
function changed(part, data) {
  const j = JSON.stringify(data);
  if (shown[part] === j) return false;
  shown[part] = j;
  return true;
}

function render() {
  $("operator").textContent = "operator " + state.operator;
  if (changed("takeovers", state.takeovers)) renderTakeovers();
  if (changed("approvals", state.approvals)) renderApprovals();
  if (changed("sessions", state.sessions)) renderSessions();
  if (changed("events", [state.events, state.events_note])) {
    $("events-note").textContent = state.events_note || "";
    loadEvents(false);
  }
  placeLive();
  if (changed("logins", [state.logins, state.logins_note])) renderLogins();
  if (watching) {
    const s = state.sessions.find((x) => x.personality === watching.personality && x.session === watching.session);
    const st = $("live-state");
    st.textContent = s ? s.state : "closed";
    st.className = "badge state-" + (s ? s.state.replace(/ /g, "-") : "closed");
  }
}

// A takeover card holds the live view of its session beside it (a
// .live-slot); the panel moves there while that session is watched.
function renderTakeovers() {
  parkLive();
  const box = $("takeovers");
  box.replaceChildren(...state.takeovers.map((t) => el("div", { class: "card takeover with-live", "data-id": t.id, "data-live-for": t.personality + "\n" + t.session },
    el("div", { class: "card-body" },
      el("div", {}, `${sessionLabel(t.personality, t.session)} asks for a human:`),
      el("div", { class: "reason" }, t.reason),
      el("div", {}, "time left: ", el("span", { class: "countdown", "data-deadline": t.deadline }, fmtLeft(t.deadline))),
      el("button", { class: "watch", onclick: () => watch(t.personality, t.session) }, "Open live view"), " ",
      el("button", { class: "handback", onclick: () => endTakeover(t, true) }, "Hand back"), " ",
      el("button", { class: "cancel", onclick: () => endTakeover(t, false) }, "Cancel")),
    el("div", { class: "live-slot" }))));
  $("no-takeovers").hidden = state.takeovers.length > 0;
}

// sessionLabel names a session as an operator knows it: its MCP client
// and personality, and the end of its id.
function sessionLabel(personality, session) {
  const s = (state.sessions || []).find((x) => x.personality === personality && x.session === session);
  const client = s && s.client ? s.client + " · " : "";
  return `${client}${personality} · …${session.slice(-6)}`;
}

// parkLive puts the live panel back in its home before cards are rebuilt;
// placeLive moves it into the card of the watched session, if any.
// An approval card's slot holds a .frame, the boxed picture: the live
// picture takes its place in that frame, the element boxed again over it,
// and the panel's controls go below.
function parkLive() {
  const p = $("live-panel");
  if ($("live").parentElement !== p) p.insertBefore($("live"), $("live-hint"));
  if (p.parentElement !== $("live-home")) $("live-home").append(p);
}

function placeLive() {
  if (!watching) return parkLive();
  const key = watching.personality + "\n" + watching.session;
  const card = [...document.querySelectorAll("[data-live-for]")].find((c) => c.dataset.liveFor === key);
  const slot = card && card.querySelector(".live-slot");
  if (!slot) return parkLive();
  if ($("live-panel").parentElement !== slot) slot.append($("live-panel"));
  const frame = slot.querySelector(".frame");
  if (frame && $("live").parentElement !== frame) frame.insertBefore($("live"), frame.querySelector(".box"));
}

// endTakeover lets go of the page first (when watching it), so the agent
// finds it free the moment its takeover call returns.
async function endTakeover(t, handBack) {
  await releaseFor(t.personality, t.session);
  await post("/api/takeover", { id: t.id, hand_back: handBack });
}

function releaseFor(personality, session) {
  const w = watching;
  if (!w || w.personality !== personality || w.session !== session || w.ws.readyState !== WebSocket.OPEN) return Promise.resolve();
  return new Promise((resolve) => {
    w.onReleased = resolve;
    w.ws.send(JSON.stringify({ type: "release" }));
    setTimeout(resolve, 3000);
  });
}

// elementWords names an approval's element as a person sees it: the
// visible text beside the accessible name where the page made them
// differ (operator.ElementWords says the same in pings and questions).
function elementWords(t) {
  const role = t.role || "element";
  if (t.text && t.name) return `${role} showing "${t.text}" (its accessible name says "${t.name}")`;
  if (t.text) return `${role} showing "${t.text}" (no accessible name)`;
  return `${role} "${t.name || ""}"`;
}

// An approval card says what is at stake: the tool and its risk, the
// element (role, name, ref), the page's title and URL, a picture of the
// page with the element boxed, and the live view in place on demand.
function renderApprovals() {
  parkLive();
  $("approvals").replaceChildren(...state.approvals.map((a) => {
    const t = a.target || {};
    return el("div", { class: "card approval with-live", "data-id": a.id, "data-live-for": a.personality + "\n" + a.session },
      el("div", { class: "card-body" },
        el("div", {}, sessionLabel(a.personality, a.session), ": ", el("b", {}, a.tool), ` (risk ${a.risk})`, a.origin ? " on " + a.origin : ""),
        ...(a.targets || [t]).filter((x) => x.ref || x.at || x.role).map((x) => el("div", { class: "target" }, x.part ? x.part + ": " : "element: ", el("b", { class: "element" }, elementWords(x)),
          x.ref ? ` [ref ${x.ref}]` : ` ${x.at || ""}`, x.origin && x.origin !== a.origin ? " in a frame of " + x.origin : "")),
        t.title || t.url ? el("div", { class: "page" }, "page: ", el("span", { class: "page-title" }, t.title || ""), " ", el("span", { class: "url" }, t.url || "")) : "",
        a.typing ? el("div", { class: "typing" }, "text to type: ", el("b", { class: "typed" }, `"${a.typing}"`)) : "",
        a.summary ? el("div", { class: "summary" }, a.summary) : "",
        a.client ? el("div", { class: "summary" }, `also asked in the agent's client (${a.client}); the first answer wins`) : "",
        el("div", {}, "time left: ", el("span", { class: "countdown", "data-deadline": a.deadline }, fmtLeft(a.deadline))),
        el("button", { class: "approve-once", onclick: () => post("/api/approval", { id: a.id, verdict: "once" }) }, "Approve once"), " ",
        a.origin ? el("button", { class: "approve-origin", onclick: () => post("/api/approval", { id: a.id, verdict: "origin" }) }, "Approve for " + a.origin) : "", " ",
        el("button", { class: "deny", onclick: () => post("/api/approval", { id: a.id, verdict: "deny" }) }, "Deny"), " ",
        el("button", { class: "watch", onclick: () => watch(a.personality, a.session) }, "Watch live here")),
      el("div", { class: "live-slot" }, boxedPicture(a)));
  }));
  $("no-approvals").hidden = state.approvals.length > 0;
}

// boxedPicture is an approval's picture of the page with the element
// boxed in red, in a frame. Where the box is (X-Target-Box, CSS pixels of
// the picture) is kept as a .box over the frame, shown while the live view
// takes the picture's place.
function boxedPicture(a) {
  const img = el("img", { class: "shot", alt: "the page, the element boxed in red" });
  const box = el("div", { class: "box" });
  fetch(`${base}/api/approval/${encodeURIComponent(a.id)}/picture`, { credentials: "same-origin" }).then(async (r) => {
    if (!r.ok) return;
    const b = (r.headers.get("X-Target-Box") || "").split(" ").map(Number);
    const url = URL.createObjectURL(await r.blob());
    img.onload = () => {
      URL.revokeObjectURL(url);
      const W = img.naturalWidth, H = img.naturalHeight;
      if (b.length !== 4 || !b.every(Number.isFinite) || !W || !H) return;
      const [x, y, w, h] = b;
      Object.assign(box.style, { left: `${(x / W) * 100}%`, top: `${(y / H) * 100}%`, width: `${(w / W) * 100}%`, height: `${(h / H) * 100}%` });
      box.dataset.placed = "1";
    };
    img.src = url;
  });
  return el("div", { class: "frame" }, img, box);
}

function renderSessions() {
  $("sessions").tBodies[0].replaceChildren(...state.sessions.map((s) => el("tr", { "data-personality": s.personality, "data-session": s.session },
    el("td", { class: "client" }, s.client || "unknown client"), el("td", {}, s.personality), el("td", { class: "sid", title: s.session }, "…" + s.session.slice(-6)),
    el("td", {}, s.title), el("td", { class: "url" }, s.url),
    el("td", {}, el("span", { class: "badge state state-" + s.state.replace(/ /g, "-") }, s.state)),
    el("td", { class: "last" }, s.last_tool ? [s.last_tool, " ", el("span", { class: "age", "data-created": s.last_at }, fmtAge(s.last_at)), " ago"].reduce((n, k) => (n.append(k), n), el("span")) : ""),
    el("td", {}, el("span", { class: "age", "data-created": s.created }, fmtAge(s.created))),
    el("td", {},
      el("button", { class: "watch", onclick: () => watch(s.personality, s.session) }, "Watch"), " ",
      el("button", { class: "close", onclick: () => confirm(`Close ${s.personality}/${s.session}? The agent loses its page.`) && post("/api/close", { personality: s.personality, session: s.session }) }, "Close")))));
  renderFilterChoices();
}

// The event log reads as sentences, newest first, filtered by session,
// tool and outcome. It is read from the host's ring (/api/events), which
// filters and pages it: the state stream carries only the newest events,
// and a change there says when to read the log again.
const log = { events: [], more: false, sessions: [], tools: [], seq: 0 };

function words(s) { return String(s || "").replace(/_/g, " "); }

function sentence(e) {
  const d = e.data || {};
  const who = e.session ? sessionLabel(e.personality, e.session) : e.personality || "host";
  switch (e.kind) {
    case "tool.call": {
      const how = d.outcome === "ok" ? "ran" : `failed (${d.code || "error"})`;
      const why = d.decision && d.decision !== "allow" ? `, decision ${d.decision}` : "";
      // A call sent somewhere (a navigate) names where; the page it left
      // comes after.
      const to = d.target ? " to " + d.target : "";
      const on = d.origin && d.origin !== d.target ? (d.target ? " from " : " on ") + d.origin : "";
      return `${who}: ${d.tool}${to} ${how}${on} in ${d.ms ?? "?"} ms${why}.`;
    }
    case "approval.requested": return `${who}: ${d.tool} (risk ${d.risk}) waits for approval${d.origin ? " on " + d.origin : ""}${d.via ? ", asked via " + d.via.join(" and ") : ""}.`;
    case "approval.decided": return `${who}: ${d.tool} ${d.verdict === "deny" ? "was denied" : d.verdict === "once" ? "was approved once" : d.verdict === "origin" ? "was approved for " + d.origin : "ended without approval (" + d.verdict + ")"}${d.by ? " by " + d.by : ""}.`;
    case "takeover.requested": return `${who} asked for a human: "${d.reason}".`;
    case "takeover.ended": return `${who}: the takeover ended (${d.outcome}) after ${Math.round((d.ms || 0) / 1000)} s.`;
    case "vault.fill": {
      const what = `stored login "${d.credential}"`;
      const where = d.origin ? " on " + d.origin : "";
      if (d.outcome === "filled") {
        const fields = (d.fields || []).length ? ` into ${d.fields.length} field${d.fields.length > 1 ? "s" : ""} (${d.fields.join(", ")})` : "";
        return `${who}: filled ${what}${fields}${where}${d.submitted ? " and submitted the form" : ""}${d.attended ? ", an operator present" : ""}.`;
      }
      return `${who}: did not fill ${what}${where}: ${words(d.outcome)}${d.code ? " (" + d.code + ")" : ""}.`;
    }
  }
  return `${who}: ${e.kind}${e.data ? " " + readable(e.data) : ""}`;
}

// readable says a plugin's event data as "key value" pairs, not JSON.
function readable(d) {
  if (d === null || typeof d !== "object") return String(d);
  return Object.entries(d).map(([k, v]) => `${words(k)} ${Array.isArray(v) ? v.join(", ") : v && typeof v === "object" ? "(" + readable(v) + ")" : v}`).join(", ");
}

function renderFilterChoices() {
  const keep = (sel, values) => {
    const cur = sel.value;
    sel.replaceChildren(el("option", { value: "" }, "all"), ...values.map(([v, label]) => el("option", { value: v }, label)));
    sel.value = values.some(([v]) => v === cur) ? cur : "";
  };
  keep($("f-session"), log.sessions.map(([p, s]) => [p + "\n" + s, sessionLabel(p, s)]));
  keep($("f-tool"), log.tools.map((t) => [t, t]));
}

// loadEvents reads the newest page of the filtered log again (as many as
// are shown, so paging back is kept), or, older, the page after the
// oldest shown. A later request wins over an earlier one.
async function loadEvents(older) {
  const seq = ++log.seq;
  const last = log.events[log.events.length - 1];
  const q = new URLSearchParams({ limit: String(older ? 50 : Math.min(500, Math.max(50, log.events.length))) });
  for (const [k, id] of [["session", "f-session"], ["tool", "f-tool"], ["outcome", "f-outcome"]]) if ($(id).value) q.set(k, $(id).value);
  if (older && last) q.set("before", last.time);
  const r = await fetch(`${base}/api/events?${q}`, { credentials: "same-origin" });
  if (!r.ok || seq !== log.seq) return;
  const j = await r.json();
  log.events = older ? log.events.concat(j.events) : j.events;
  log.more = j.more;
  log.sessions = j.sessions;
  log.tools = j.tools;
  renderFilterChoices();
  renderEvents();
}

function renderEvents() {
  $("events").replaceChildren(...log.events.map((e, i) => el("li", { class: "event outcome-" + (e.outcome || "none"), "data-kind": e.kind },
    el("span", { class: "n" }, String(i + 1)), " ", el("time", {}, e.time.slice(11, 19)), " ", sentence(e))));
  $("events-older").hidden = !log.more;
}

function renderLogins() {
  $("logins-note").textContent = state.logins_note || (state.logins.length ? "" : "No stored logins.");
  $("logins").tBodies[0].replaceChildren(...state.logins.map((l) => el("tr", {},
    el("td", {}, l.name), el("td", {}, (l.policy.origins || []).join(", ")), el("td", {}, (l.policy.personalities || []).join(", ")),
    el("td", {}, l.policy.unattended ? "yes" : "no (needs a human present)"), el("td", {}, l.has_totp ? "yes" : ""))));
}

function fmtLeft(deadline) {
  const s = Math.max(0, Math.round((Date.parse(deadline) - Date.now()) / 1000));
  return s >= 60 ? `${Math.floor(s / 60)}m ${s % 60}s` : `${s}s`;
}

function fmtAge(created) {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(created)) / 1000));
  return s >= 3600 ? `${Math.floor(s / 3600)}h` : s >= 60 ? `${Math.floor(s / 60)}m` : `${s}s`;
}

setInterval(() => {
  for (const c of document.querySelectorAll(".countdown")) c.textContent = fmtLeft(c.dataset.deadline);
  for (const a of document.querySelectorAll(".age")) a.textContent = fmtAge(a.dataset.created);
}, 1000);

// Live view.

function watch(personality, session) {
  stopWatching();
  const ws = new WebSocket(`${wsBase}/live?personality=${encodeURIComponent(personality)}&session=${encodeURIComponent(session)}`);
  watching = { personality, session, ws, w: 0, h: 0 };
  $("live-panel").hidden = false;
  $("live-name").textContent = sessionLabel(personality, session);
  placeLive();
  $("live-error").textContent = "";
  const img = $("live");
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.type === "frame") {
      watching.w = msg.w; watching.h = msg.h;
      img.src = "data:image/jpeg;base64," + msg.jpeg;
      img.dataset.seq = msg.seq;
      img.dataset.width = msg.w;
      img.dataset.height = msg.h;
    } else if (msg.type === "error") {
      $("live-error").textContent = msg.error.message;
    } else if (msg.type === "released") {
      if (watching.onReleased) watching.onReleased();
      watching.onReleased = null;
    } else if (msg.type === "ack") {
      $("live-error").textContent = "";
      img.dataset.acks = String(Number(img.dataset.acks || 0) + 1);
    }
  };
  ws.onclose = () => { if (watching && watching.ws === ws) $("live-error").textContent = "live view closed"; };
}

function stopWatching() {
  if (watching) watching.ws.close();
  watching = null;
  $("live-panel").hidden = true;
  parkLive();
}

function send(input) {
  if (watching && watching.ws.readyState === WebSocket.OPEN) watching.ws.send(JSON.stringify({ type: "input", ...input }));
}

// point maps a mouse event on the picture to the page's CSS pixels.
function point(ev) {
  const r = $("live").getBoundingClientRect();
  return { x: (ev.clientX - r.left) * (watching.w / r.width), y: (ev.clientY - r.top) * (watching.h / r.height) };
}

document.addEventListener("DOMContentLoaded", () => {
  const img = $("live");
  img.addEventListener("click", (ev) => { if (watching && watching.w) { img.focus(); send({ kind: "click", ...point(ev) }); } });
  img.addEventListener("wheel", (ev) => { if (watching && watching.w) { ev.preventDefault(); send({ kind: "scroll", ...point(ev), dx: ev.deltaX, dy: ev.deltaY }); } }, { passive: false });
  img.addEventListener("keydown", (ev) => {
    if (!watching) return;
    ev.preventDefault();
    if (ev.key.length === 1 && !ev.ctrlKey && !ev.metaKey && !ev.altKey) send({ kind: "type", text: ev.key });
    else send({ kind: "key", key: ev.key });
  });
  $("live-type").addEventListener("click", () => { send({ kind: "type", text: $("live-text").value }); $("live-text").value = ""; });
  for (const b of document.querySelectorAll(".live-key")) b.addEventListener("click", () => send({ kind: "key", key: b.dataset.key }));
  $("live-go").addEventListener("click", () => send({ kind: "navigate", url: $("live-url").value }));
  $("live-back").addEventListener("click", () => send({ kind: "back" }));
  $("live-release").addEventListener("click", () => watching && releaseFor(watching.personality, watching.session));
  $("live-stop").addEventListener("click", stopWatching);
  for (const id of ["f-session", "f-tool", "f-outcome"]) $(id).addEventListener("change", () => { log.events = []; loadEvents(false); });
  $("events-older").addEventListener("click", () => loadEvents(true));
  connect();
});
