// jiyi memory inspector: plain DOM, no framework, no network beyond this server.
"use strict";
const $ = (sel) => document.querySelector(sel);
const state = { user: "", session: "", units: [], selected: "" };

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else if (k.startsWith("data-")) node.setAttribute(k, v); else node[k] = v;
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(c == null ? "" : String(c)));
  return node;
}

// A server started with JIYI_TOKEN wants it on every data call: taken from #token=... in the
// address, or asked once, and kept for this tab only (sessionStorage).
const TOKEN_KEY = "jiyi-token";
(function tokenFromHash() {
  const m = location.hash.match(/token=([^&]+)/);
  if (m) { sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1])); history.replaceState(null, "", location.pathname); }
})();

async function api(path, params, retried) {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(params || {})) if (v !== "" && v != null) url.searchParams.set(k, v);
  const token = sessionStorage.getItem(TOKEN_KEY);
  const resp = await fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  if (resp.status === 401 && !retried) {
    const given = window.prompt("This jiyi server needs its token (JIYI_TOKEN):");
    if (given) { sessionStorage.setItem(TOKEN_KEY, given.trim()); return api(path, params, true); }
  }
  const body = await resp.json();
  if (!resp.ok) throw new Error((body.error && body.error.message) || resp.statusText);
  return body;
}

function status(text) { $("#status").textContent = text; }
const day = (t) => (t ? t.replace("T", " ").slice(0, 16) : "—");

async function loadUsers() {
  const { users } = await api("/inspector/api/users");
  const sel = $("#user");
  sel.replaceChildren(el("option", { value: "" }, "(pick a user)"), ...users.map((u) => el("option", { value: u }, u)));
  status(`${users.length} users`);
}

async function pickUser(user) {
  state.user = user; state.session = ""; state.selected = "";
  $("#detail-panel").hidden = true;
  const sessSel = $("#session");
  sessSel.replaceChildren(el("option", { value: "" }, "(all sessions)"));
  if (!user) return;
  const { sessions } = await api("/inspector/api/sessions", { user_id: user });
  sessSel.append(...sessions.map((s) => el("option", { value: s }, s)));
  await Promise.all([loadUnits(), loadHealth()]);
}

async function loadUnits() {
  const body = await api("/inspector/api/units", { user_id: state.user, session_id: state.session });
  state.units = body.units;
  renderUnits();
}

function renderUnits() {
  const showInvalid = $("#show-invalid").checked;
  const rows = state.units.filter((u) => showInvalid || u.valid_now).map((u) => {
    const content = el("td", { class: "content" }, u.content);
    if (u.superseded_by) {
      const link = el("a", { class: "superseded", href: "#" }, `superseded by: ${u.superseded_by_content || u.superseded_by}`);
      link.addEventListener("click", (ev) => { ev.preventDefault(); ev.stopPropagation(); showUnit(u.superseded_by); });
      content.append(link);
    } else if (u.invalidated_at) {
      content.append(el("span", { class: "superseded" }, `forgotten: ${u.invalidation_reason || ""}`));
    }
    const tr = el("tr", { class: u.valid_now ? "" : "invalid", "data-unit": u.id },
      el("td", { class: "type" }, u.type), content,
      el("td", {}, day(u.valid_at || u.created_at)),
      el("td", {}, day(u.invalidated_at || u.valid_until || u.expires_at)),
      el("td", {}, u.relevance_score.toFixed(2)),
      el("td", {}, u.source_turn_ids.length));
    if (u.id === state.selected) tr.classList.add("selected");
    tr.addEventListener("click", () => showUnit(u.id));
    return tr;
  });
  $("#units tbody").replaceChildren(...rows);
  const invalid = state.units.filter((u) => !u.valid_now).length;
  $("#unit-count").textContent = `(${state.units.length}, ${invalid} not valid now)`;
}

async function showUnit(id) {
  state.selected = id;
  renderUnits();
  const u = await api(`/inspector/api/units/${encodeURIComponent(id)}`);
  $("#detail-id").textContent = u.id;
  const parts = [
    el("p", {}, el("span", { class: "type" }, u.type), " ", u.content),
    el("p", { class: "event" }, `created ${day(u.created_at)} · expires ${day(u.expires_at)} · relevance ${u.relevance_score}` +
      (u.invalidated_at ? ` · invalidated ${day(u.invalidated_at)} (${u.invalidation_reason || ""})` : "")),
    el("h3", {}, `Provenance: ${u.turns.length} turn(s)`),
    ...u.turns.map((t) => el("div", { class: "turn" },
      el("div", { class: "meta" }, `${t.turn_id} · ${t.role} · ${day(t.at)} · session ${t.session_id}`), t.text)),
  ];
  if (u.superseded.length) parts.push(el("h3", {}, "Replaced"), ...u.superseded.map((s) => el("p", { class: "event" }, `${s.content} (${s.id})`)));
  if (u.superseded_by_chain.length) parts.push(el("h3", {}, "Replaced by"), ...u.superseded_by_chain.map((s) => el("p", { class: "event" }, `${s.content} (${s.id})`)));
  parts.push(el("h3", {}, "Events"), ...u.events.map((e) => el("div", { class: "event" }, `${day(e.at)} ${e.event} ${e.detail || ""}${e.score_after != null ? " → " + e.score_after : ""}`)));
  $("#detail").replaceChildren(...parts);
  $("#detail-panel").hidden = false;
}

function stageList(title, items) {
  return el("div", { class: "stage" }, el("h3", {}, `${title} (${items.length})`),
    el("ol", {}, ...items.map((i) => el("li", {}, i.content, " ", el("span", { class: "score" }, i.score.toFixed(3))))));
}

async function runRecall(ev) {
  ev.preventDefault();
  const q = $("#query").value.trim();
  if (!q || !state.user) { status("pick a user and type a query"); return; }
  const session = state.session || ($("#session").options[1] && $("#session").options[1].value) || state.user;
  try {
    const r = await api("/inspector/api/recall", { q, session_id: session, user_id: state.user });
    const final = el("div", { class: "final" }, el("h3", {}, `Final ranking (stage 3) in session ${session}`),
      el("ol", {}, ...r.hits.map((h) => {
        const li = el("li", { "data-unit": h.id }, h.content, " ",
          el("span", { class: "score" }, `score ${h.score.toFixed(3)} · ${h.stage} · confidence ${h.confidence.toFixed(2)}`));
        li.addEventListener("click", () => showUnit(h.id));
        return li;
      })));
    if (r.ask_to_confirm) final.append(el("p", { class: "confirm" }, `best confidence below ${r.confidence_threshold}: the agent should ask the user to confirm`));
    const total = r.timings.reduce((sum, t) => sum + t.ms, 0);
    const timings = el("p", { class: "timings" }, `stage times (${total.toFixed(1)} ms): `,
      r.timings.map((t) => `${t.stage} ${t.ms.toFixed(1)} ms`).join(" · "));
    $("#recall-result").replaceChildren(
      el("div", { class: "stages" }, stageList("1 · rules (exact entities)", r.stages.rule),
        stageList("2 · keyword (BM25)", r.stages.keyword), stageList("2 · vector", r.stages.vector)), timings, final);
    status(`recall: ${r.hits.length} hits for “${q}”`);
  } catch (err) { status(`recall failed: ${err.message}`); }
}

function drawChart(h) {
  const svg = $("#health-chart");
  const ns = "http://www.w3.org/2000/svg";
  const bars = [["freshness", h.freshness_ratio], ["hit rate", h.hit_rate == null ? 0 : h.hit_rate]];
  for (const [t, n] of Object.entries(h.by_type || {})) bars.push([t, n / Math.max(1, h.units_total)]);
  svg.replaceChildren();
  svg.setAttribute("height", String(bars.length * 20 + 10));
  bars.forEach(([label, v], i) => {
    const y = i * 20 + 4;
    const text = document.createElementNS(ns, "text");
    text.setAttribute("x", "0"); text.setAttribute("y", String(y + 12)); text.setAttribute("font-size", "11");
    text.textContent = label;
    const bg = document.createElementNS(ns, "rect");
    bg.setAttribute("x", "110"); bg.setAttribute("y", String(y)); bg.setAttribute("width", "200"); bg.setAttribute("height", "14"); bg.setAttribute("fill", "#e5e7eb");
    const bar = document.createElementNS(ns, "rect");
    bar.setAttribute("x", "110"); bar.setAttribute("y", String(y)); bar.setAttribute("height", "14");
    bar.setAttribute("width", String(Math.round(200 * Math.max(0, Math.min(1, v)))));
    bar.setAttribute("fill", i === 0 ? (h.freshness_healthy ? "#0f766e" : "#b91c1c") : i === 1 ? "#2563eb" : "#64748b");
    const val = document.createElementNS(ns, "text");
    val.setAttribute("x", "316"); val.setAttribute("y", String(y + 12)); val.setAttribute("font-size", "11");
    val.textContent = label === "hit rate" && h.hit_rate == null ? "n/a" : `${Math.round(v * 100)}%`;
    svg.append(text, bg, bar, val);
  });
}

async function loadHealth() {
  const h = await api("/inspector/api/health", { user_id: state.user });
  const fig = (label, value, alert) => el("div", { class: "figure" + (alert ? " alert" : "") }, el("b", {}, value), el("span", {}, label));
  $("#health-figures").replaceChildren(
    fig("freshness", `${(h.freshness_ratio * 100).toFixed(0)}%`, !h.freshness_healthy),
    fig("hit rate", h.hit_rate == null ? "—" : `${(h.hit_rate * 100).toFixed(0)}%`, h.hit_rate_healthy === false),
    fig("amnesia", h.amnesia_alert ? `ALERT ${h.amnesia_sessions.join(", ")}` : "none", h.amnesia_alert),
    fig("units valid / total", `${h.units_valid} / ${h.units_total}`, false));
  drawChart(h);
}

$("#user").addEventListener("change", (e) => pickUser(e.target.value).catch((err) => status(err.message)));
$("#session").addEventListener("change", (e) => { state.session = e.target.value; loadUnits().catch((err) => status(err.message)); });
$("#show-invalid").addEventListener("change", renderUnits);
$("#recall-form").addEventListener("submit", runRecall);
loadUsers().then(() => loadHealth()).catch((err) => status(err.message));
