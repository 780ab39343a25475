// projectgraph viewer: a page over the JSON API of `projectgraph ui`. Hand-written, no framework,
// no network but this server. Routes live in the location hash:
//   #/                      the project
//   #/search?q=..&mode=..   search results
//   #/symbol/KEY?line=N     a symbol: code, neighbourhood graph (expanded node by node), sites
//   #/impact/KEY?depth=N    the impact radius, grouped by file
//   #/reach?target=T&source=S&only=1   a reach question
//   #/files?unit=U          files and their statuses, units and their versions
// The live channel (/api/events) says when the store's sync generation moves; the page then
// re-reads what it shows (replaying the graph's expansions) and says so.
"use strict";

(() => {
  const SVGNS = "http://www.w3.org/2000/svg";
  const PAGE = 25; // neighbours asked per expansion
  const W = 214, H = 40, COLW = 340, ROWH = 52; // graph geometry

  // ---- DOM helpers ---------------------------------------------------------------------------
  function attrs(el, given) {
    for (const [k, v] of Object.entries(given || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "text") el.textContent = v;
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? "" : String(v));
    }
  }
  function kids(el, list) {
    for (const k of list.flat(Infinity)) {
      if (k === null || k === undefined || k === false) continue;
      el.append(k instanceof Node ? k : String(k));
    }
  }
  function h(tag, given, ...children) {
    const el = document.createElement(tag);
    attrs(el, given);
    kids(el, children);
    return el;
  }
  function s(tag, given, ...children) {
    const el = document.createElementNS(SVGNS, tag);
    attrs(el, given);
    kids(el, children);
    return el;
  }
  const $ = (sel, root = document) => root.querySelector(sel);
  const add = (el, ...children) => kids(el, children); // Element.append would print a null

  // ---- the API -------------------------------------------------------------------------------
  async function api(name, params) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params || {})) {
      if (Array.isArray(v)) v.forEach((x) => q.append(k, x));
      else if (v !== undefined && v !== null && v !== "") q.append(k, String(v));
    }
    const res = await fetch(`/api/${name}?${q}`, { headers: { Accept: "application/json" } });
    let data;
    try {
      data = await res.json();
    } catch (e) {
      data = { error: `${res.status} ${res.statusText}` };
    }
    if (!res.ok) {
      const error = new Error(data.error || res.statusText);
      error.status = res.status;
      error.data = data;
      throw error;
    }
    return data;
  }

  // ---- names and links -----------------------------------------------------------------------
  // a key: path//Qualified//name (first party), module//name (external), eco:pkg@ver//path//name (unit)
  function parts(key) {
    const p = key.split("//");
    if (/^[a-z][a-z0-9]*:.+@/.test(p[0])) return { unit: p[0], path: p[1] || "", names: p.slice(2) };
    if (p.length > 1 && /[/.]/.test(p[0]) && /\.[A-Za-z0-9]+$/.test(p[0])) return { unit: "", path: p[0], names: p.slice(1) };
    if (p.length === 1 && /\.[A-Za-z0-9]+$/.test(p[0])) return { unit: "", path: p[0], names: [] };
    return { unit: "", path: "", names: p, external: true };
  }
  function label(key) {
    const k = parts(key);
    if (k.external) return k.names.join(".");
    return k.names.length ? k.names.join(".") : k.path || key;
  }
  function where(path, line, unit) {
    if (unit) return unit + (path ? ` ${path}` : "");
    if (!path) return "external";
    return line ? `${path}:${line}` : path;
  }
  const symbolHref = (key, line) => `#/symbol/${encodeURIComponent(key)}` + (line ? `?line=${line}` : "");
  const impactHref = (key, depth) => `#/impact/${encodeURIComponent(key)}?depth=${depth || 2}`;
  function reachHref(targets, sources, only, depth) {
    const q = new URLSearchParams();
    (targets || []).forEach((t) => q.append("target", t));
    (sources || []).forEach((x) => q.append("source", x));
    if (only) q.set("only", "1");
    if (depth) q.set("depth", String(depth));
    return "#/reach" + (q.toString() ? `?${q}` : "");
  }
  function symbolLink(key, line, text) {
    return h("a", { href: symbolHref(key, line), class: "mono", title: key, text: text || label(key) });
  }
  function siteText(site) {
    return site ? `${site.path}:${site.line}:${site.column}` : "";
  }
  function confidenceBadge(kind, confidence) {
    return h("span", { class: `badge ${confidence}`, title: `edge kind ${kind}, confidence ${confidence}` }, kind, confidence === "high" ? "" : ` · ${confidence}`);
  }
  function time(ns) {
    return ns ? new Date(ns / 1e6).toLocaleTimeString() : "never";
  }
  function plural(n, word) {
    return `${n.toLocaleString()} ${word}${n === 1 ? "" : "s"}`;
  }
  function errorBox(error) {
    const box = h("div", { class: "error" }, error.message);
    const candidates = error.data && error.data.candidates;
    if (candidates) {
      box.append(h("p", {}, "Which one?"));
      box.append(h("ul", {}, candidates.map((c) => h("li", {}, symbolLink(c.key, null, c.key), " ", h("span", { class: "badge kind" }, c.kind), " ", h("span", { class: "muted small" }, where(c.path, c.line))))));
    }
    return box;
  }

  // ---- state ---------------------------------------------------------------------------------
  const state = {
    status: null,
    genKey: null,
    run: null,
    staleness: null,
    liveVersion: -1, // the live state's version the staleness above is from: an older one never wins
    renderToken: 0,
    graph: null,
    expansions: [], // [key, direction, limit] the person asked for on this symbol page
    refreshes: 0,
  };
  window.__pg = { expands: [], views: [] }; // timings, read by the tests and the benchmark

  function route() {
    const raw = location.hash.replace(/^#/, "") || "/";
    const at = raw.indexOf("?");
    const path = at >= 0 ? raw.slice(0, at) : raw;
    const query = at >= 0 ? raw.slice(at + 1) : "";
    return { parts: path.split("/").filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(query) };
  }

  async function render(opts = {}) {
    const token = ++state.renderToken;
    const started = performance.now();
    const { parts: p, params } = route();
    const view = $("#view");
    for (const a of document.querySelectorAll(".tabs a")) a.classList.toggle("active", a.dataset.tab === p[0]);
    const fresh = h("div", { class: "content" });
    const live = () => token === state.renderToken;
    // a view that takes longer than a blink shows what it has so far (a refresh keeps the old one)
    const early = opts.refresh ? null : setTimeout(() => {
      if (!live()) return;
      if (!fresh.childNodes.length) add(fresh, h("p", { class: "muted loading" }, "Loading…"));
      view.replaceChildren(fresh);
    }, 150);
    try {
      if (p[0] === "symbol" && p[1]) await viewSymbol(fresh, p[1], params, opts, live);
      else if (p[0] === "impact" && p[1]) await viewImpact(fresh, p[1], params, live);
      else if (p[0] === "reach") await viewReach(fresh, params, live);
      else if (p[0] === "files") await viewFiles(fresh, params, live);
      else if (p[0] === "search") await viewSearch(fresh, params, live);
      else await viewHome(fresh, live);
    } catch (error) {
      if (!live()) return;
      fresh.replaceChildren(errorBox(error));
    }
    clearTimeout(early);
    if (!live()) return;
    for (const note of fresh.querySelectorAll(":scope > .loading")) note.remove();
    if (fresh.parentNode !== view) view.replaceChildren(fresh);
    if (state.graph && state.graph.box.isConnected) state.graph.fit();
    const ms = Math.round(performance.now() - started);
    window.__pg.views.push({ route: location.hash, ms });
    document.body.dataset.view = p[0] || "home";
    document.body.dataset.rendered = String(window.__pg.views.length);
    if (!opts.refresh && !(params.get("line"))) window.scrollTo(0, 0);
  }

  // ---- header: status, live channel, staleness -----------------------------------------------
  async function loadStatus() {
    const st = await api("status");
    state.status = st;
    setGeneration(st.generation);
    // a status fetched while an event arrived may carry the older staleness: keep the newer one
    if (st.liveVersion >= state.liveVersion) {
      state.staleness = st.staleness;
      state.liveVersion = st.liveVersion;
    }
    document.title = `${st.name} · projectgraph`;
    $("#foot").textContent = `projectgraph ${st.version} · ${st.root} · ${plural(st.graph.nodes, "node")}, ${plural(st.graph.edges, "edge")}, ${plural(st.graph.files, "file")}`;
    showLive();
    return st;
  }

  function setGeneration(gen) {
    const key = `${gen.run}:${gen.synced_at_ns}`;
    const before = { key: state.genKey, run: state.run };
    state.genKey = key;
    state.run = gen.run;
    state.syncedAt = gen.synced_at_ns;
    document.body.dataset.generation = key;
    return before;
  }

  function showLive(offline) {
    const pill = $("#live");
    const st = state.staleness;
    pill.className = "live";
    if (offline) {
      pill.classList.add("offline");
      pill.textContent = "offline · reconnecting…";
      return;
    }
    const synced = `synced ${time(state.syncedAt)}`;
    if (!st || !st.checked) {
      pill.textContent = `${synced} · checking…`;
    } else if (st.stale === null) {
      pill.textContent = `${synced} · cannot check the files`;
      pill.title = st.error || "";
    } else if (st.stale) {
      pill.classList.add("stale");
      pill.textContent = `stale: ${plural(st.pending, "change")} since the last sync`;
    } else {
      pill.classList.add("current");
      pill.textContent = `current · ${synced}`;
    }
    if (st && st.watcher) pill.textContent += ` · watcher ${st.watcher.state || "on"}`;
    document.body.dataset.stale = st && st.checked ? String(Boolean(st.stale)) : "unknown";
    const banner = $("#banner");
    if (st && st.stale) {
      const named = [...st.changed.map((p) => `changed ${p}`), ...st.added.map((p) => `added ${p}`), ...st.removed.map((p) => `removed ${p}`), ...st.controls.map((p) => `control file ${p}`)];
      banner.className = "banner stale";
      banner.replaceChildren(
        h("strong", {}, "The index is stale: "),
        `the working copy has ${plural(st.pending, "change")} the stored graph does not hold yet (${named.slice(0, 6).join(", ")}${named.length > 6 ? ", …" : ""}). `,
        "Answers below are from the last sync. Run ",
        h("code", {}, "projectgraph sync"),
        " or keep ",
        h("code", {}, "projectgraph watch"),
        " running: this page refreshes itself when the graph is synced.",
      );
      banner.hidden = false;
    } else if (banner.classList.contains("stale")) {
      banner.hidden = true;
      banner.className = "banner";
    }
  }

  function flash(text) {
    const banner = $("#banner");
    if (banner.classList.contains("stale") && !banner.hidden) return;
    banner.className = "banner info";
    banner.textContent = text;
    banner.hidden = false;
    clearTimeout(flash.timer);
    flash.timer = setTimeout(() => {
      if (banner.classList.contains("info")) banner.hidden = true;
    }, 6000);
  }

  function connectLive() {
    const events = new EventSource("/api/events");
    const on = (data, hello) => {
      const before = setGeneration(data.generation);
      if (hello || data.version >= state.liveVersion) { // a new server (hello) counts from 0 again
        state.staleness = data.staleness;
        state.liveVersion = data.version;
      }
      showLive();
      if (before.key !== null && before.run !== data.generation.run) onSynced();
    };
    events.addEventListener("hello", (e) => on(JSON.parse(e.data), true));
    events.addEventListener("generation", (e) => on(JSON.parse(e.data)));
    events.addEventListener("staleness", (e) => on(JSON.parse(e.data)));
    events.addEventListener("error", () => showLive(true));
  }

  async function onSynced() {
    state.refreshes += 1;
    try {
      await loadStatus();
    } catch (e) {
      /* the header keeps the last status */
    }
    await render({ refresh: true });
    document.body.dataset.refreshes = String(state.refreshes);
    flash(`The graph was synced at ${time(state.syncedAt)} (run ${state.run}): this page was refreshed with it.`);
  }

  // ---- search box ----------------------------------------------------------------------------
  function setupSearch() {
    const input = $("#q"), mode = $("#mode"), box = $("#suggest"), form = $("#search-form");
    let timer = null, asked = 0, active = -1, items = [];
    const hide = () => { box.hidden = true; active = -1; };
    const mark = () => items.forEach((el, i) => el.classList.toggle("active", i === active));
    async function suggest() {
      const q = input.value.trim();
      if (!q) return hide();
      const mine = ++asked;
      let answer;
      try {
        answer = await api("search", { q, mode: mode.value, limit: 12 });
      } catch (error) {
        if (mine !== asked) return;
        box.replaceChildren(h("div", { class: "note" }, error.message));
        box.hidden = false;
        return;
      }
      if (mine !== asked) return;
      items = answer.results.map((r) =>
        h("a", { class: "item", href: symbolHref(r.key), role: "option", "data-key": r.key, onclick: hide },
          h("span", { class: "badge kind" }, r.kind), " ", h("strong", {}, r.qualname || r.name || r.key), " ",
          h("span", { class: "muted small mono" }, where(r.path, r.line))));
      const notes = [];
      if (!items.length) notes.push(h("div", { class: "note" }, `nothing matches ${JSON.stringify(q)}`));
      if (answer.semantic && answer.semantic !== "used" && answer.semantic !== "not used") notes.push(h("div", { class: "note" }, `semantic search ${answer.semantic}`));
      box.replaceChildren(...items, ...notes);
      active = -1;
      box.hidden = false;
    }
    input.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(suggest, 110); });
    mode.addEventListener("change", suggest);
    input.addEventListener("keydown", (e) => {
      if (e.key === "ArrowDown" && items.length) { active = Math.min(active + 1, items.length - 1); mark(); e.preventDefault(); }
      else if (e.key === "ArrowUp" && items.length) { active = Math.max(active - 1, 0); mark(); e.preventDefault(); }
      else if (e.key === "Escape") hide();
    });
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const q = input.value.trim();
      if (active >= 0 && items[active]) location.hash = items[active].getAttribute("href");
      else if (q) location.hash = `#/search?q=${encodeURIComponent(q)}&mode=${mode.value}`;
      hide();
    });
    document.addEventListener("click", (e) => { if (!form.contains(e.target)) hide(); });
  }

  // ---- views: home, search -------------------------------------------------------------------
  async function viewHome(el) {
    const st = state.status || (await loadStatus());
    const g = st.graph;
    add(el, 
      h("div", { class: "panel" },
        h("h1", {}, st.name),
        h("div", { class: "muted mono" }, st.root),
        h("dl", { class: "kv", style: null },
          h("dt", {}, "files"), h("dd", {}, g.files.toLocaleString(), st.units ? ` (and ${plural(st.units, "unit")} of dependency code)` : ""),
          h("dt", {}, "symbols"), h("dd", {}, g.nodes.toLocaleString()),
          h("dt", {}, "edges"), h("dd", {}, g.edges.toLocaleString()),
          h("dt", {}, "unresolved sites"), h("dd", {}, g.unresolved.toLocaleString()),
          h("dt", {}, "roots"), h("dd", {}, g.roots.toLocaleString()),
          h("dt", {}, "last sync"), h("dd", {}, `${time(st.generation.synced_at_ns)} (run ${st.generation.run})`)),
      ),
      h("div", { class: "panel" },
        h("h2", {}, "Where to start"),
        h("p", {}, "Search a symbol in the box above: its page shows its code, its callers and callees as a graph you expand node by node, and the calls in it the tool could not resolve."),
        h("p", {}, h("a", { href: "#/reach" }, "Reach"), ": does code that runs reach a symbol such as ", h("code", {}, "yaml//load"), " or ", h("code", {}, "subprocess//*"), "? The answer is found (with the path), not-found, uncertain (with the sites that cause it) or no-such-target: never not-found when the tool does not know."),
        h("p", {}, h("a", { href: "#/files" }, "Files"), ": every file with its index status, and the units of dependency code with their versions."),
      ),
    );
  }

  async function viewSearch(el, params, live) {
    const q = params.get("q") || "";
    const mode = params.get("mode") || "hybrid";
    $("#q").value = q;
    const answer = await api("search", { q, mode, limit: 100 });
    if (!live()) return;
    add(el, h("div", { class: "panel" },
      h("h1", {}, `Search: ${q}`),
      h("div", { class: "muted small" }, `${plural(answer.results.length, "result")} · mode ${answer.mode} · semantic: ${answer.semantic}`),
      h("table", { class: "list" },
        h("tr", {}, h("th", {}, "symbol"), h("th", {}, "kind"), h("th", {}, "where"), h("th", {}, "signature")),
        answer.results.map((r) => h("tr", {},
          h("td", {}, symbolLink(r.key, null, r.qualname || r.name || r.key)),
          h("td", {}, h("span", { class: "badge kind" }, r.kind)),
          h("td", { class: "mono small" }, where(r.path, r.line)),
          h("td", { class: "mono small" }, r.signature || ""))))));
  }

  // ---- view: a symbol ------------------------------------------------------------------------
  async function viewSymbol(el, key, params, opts, live) {
    const line = Number(params.get("line")) || null;
    if (!opts.refresh) state.expansions = [];
    const [info, callers, callees] = await Promise.all([
      api("symbol", { key }),
      api("callers", { key, limit: PAGE }),
      api("callees", { key, limit: PAGE }),
    ]);
    if (!live()) return;
    const sym = info.symbol;
    const codeSites = new Map();
    for (const c of callees.results) if (c.site && c.site.path === sym.path) codeSites.set(c.site.line, "site");
    for (const u of info.unresolved) if (u.site.path === sym.path) codeSites.set(u.site.line, "unresolved");

    // the header
    add(el, h("div", { class: "panel", id: "symbol-head" },
      h("h1", {}, label(sym.key), " ", h("span", { class: "badge kind" }, sym.kind),
        info.roots.map((r) => h("span", { class: "badge root", title: `a root of the graph: ${r.rule}` }, `root: ${r.kind}`))),
      h("div", { class: "mono small muted" }, sym.key),
      h("dl", { class: "kv" },
        h("dt", {}, "where"), h("dd", { class: "mono" }, sym.path ? `${sym.path}:${sym.line}${sym.end_line > sym.line ? `–${sym.end_line}` : ""}` : "external (no definition in the graph)"),
        sym.unit ? [h("dt", {}, "unit"), h("dd", { class: "mono" }, sym.unit)] : null,
        sym.language ? [h("dt", {}, "language"), h("dd", {}, sym.language)] : null,
        sym.signature ? [h("dt", {}, "signature"), h("dd", { class: "mono" }, sym.signature)] : null,
        sym.doc ? [h("dt", {}, "doc"), h("dd", {}, sym.doc.split("\n\n")[0])] : null,
        info.roots.length ? [h("dt", {}, "root rule"), h("dd", {}, info.roots.map((r) => `${r.kind}: ${r.rule}`).join("; "))] : null),
      h("div", { class: "actions" },
        h("a", { class: "button", href: impactHref(sym.key, 2), id: "open-impact" }, "Impact radius"),
        sym.kind !== "external" && !sym.unit ? h("a", { class: "button", href: reachHref([], [sym.key], true) }, "Reach from here") : null,
        h("a", { class: "button", href: reachHref([sym.key]) }, "Is it reached?"))));

    // the neighbourhood
    const box = h("div", { class: "graphbox", id: "graph" });
    const info2 = h("div", { class: "graphinfo", id: "graph-info" });
    add(el, h("div", { class: "panel" },
      h("h2", {}, "Neighbourhood"),
      legend(),
      box, info2));
    const graph = new Neighbourhood(box, info2, sym);
    state.graph = graph;
    graph.loaded(sym.key, "in", callers, PAGE);
    graph.loaded(sym.key, "out", callees, PAGE);
    graph.draw();
    if (opts.refresh) await graph.replay(state.expansions, live);
    else state.expansions = [];

    // callers and callees as lists, uncertain callers, unresolved sites
    add(el, h("div", { class: "grid2" },
      neighbourList("Callers", "callers", callers, "in"),
      neighbourList("Callees", "callees", callees, "out")));
    if (callers.uncertain || callers.status) add(el, uncertainPanel(callers, "callers"));
    add(el, unresolvedPanel(info));
    add(el, codePanel(info.code, codeSites, line));
    if (line) {
      const target = el.querySelector(`.ln[data-line="${line}"]`);
      if (target) setTimeout(() => target.scrollIntoView({ block: "center" }), 0);
    }
  }

  function legend() {
    const sample = (cls, text) => h("span", {}, (() => {
      const svg = s("svg", { width: 36, height: 10, class: "graph" });
      svg.append(s("g", { class: `edge ${cls}` }, s("path", { d: "M2 5 L34 5" })));
      return svg;
    })(), " ", text);
    return h("div", { class: "legend" },
      sample("high", "high confidence (direct, import, member, …)"),
      sample("medium", "medium (field, assignment)"),
      sample("low", "low: dashed, labelled with the rule that made it (name, cha, reference, …)"),
      h("span", {}, "Click ", h("strong", {}, "+"), " on a node's left side for its callers, right side for its callees; click a name to open it."));
  }

  function neighbourList(title, id, answer, dir) {
    const rows = answer.results.map((r) => h("tr", {},
      h("td", {}, symbolLink(r.key, null)),
      h("td", {}, confidenceBadge(r.kind, r.confidence), r.relation !== "calls" ? h("span", { class: "badge" }, r.relation) : null),
      h("td", { class: "mono small" }, r.site ? h("a", { href: symbolHref(dir === "in" ? r.key : answer.symbol, r.site.line) }, siteText(r.site)) : "")));
    const none = answer.total === 0
      ? h("p", { class: "muted" }, dir === "in" ? noCallerText(answer) : "No callees in the graph.")
      : null;
    return h("div", { class: "panel", id },
      h("h2", {}, `${title} `, h("span", { class: "muted small" }, answer.truncated ? `${answer.results.length} of ${answer.total}` : `${answer.total}`)),
      none || h("table", { class: "list" }, h("tr", {}, h("th", {}, "symbol"), h("th", {}, "edge"), h("th", {}, "site")), rows));
  }

  function noCallerText(answer) {
    // the honesty rule: "no caller" only when nothing unresolved could name it
    if (answer.status === "no-caller") return "No caller: no edge, and nothing unresolved could name it.";
    if (answer.status === "entry-point") return "No caller in the project: it is a root, called from outside.";
    if (answer.status === "callers-unknown") return "No edge says who calls it, but unresolved calls could: see the uncertain callers.";
    return "No edge into it in the graph (the unresolved sites of other code are not ruled out here).";
  }

  function uncertainPanel(answer, what) {
    const u = answer.uncertain || { total: 0, results: [], counts: {} };
    const counts = Object.entries(u.counts || {}).map(([rule, n]) => `${rule}: ${n}`).join(", ");
    return h("div", { class: "panel", id: "uncertain" },
      h("h2", {}, "Uncertain ", what, " ", h("span", { class: "muted small" }, `${u.total}${counts ? ` (${counts})` : ""}`),
        answer.status ? h("span", { class: "badge" }, answer.status) : null),
      u.results.length
        ? h("table", { class: "list" },
          h("tr", {}, h("th", {}, "could be called from"), h("th", {}, "rule"), h("th", {}, "reason"), h("th", {}, "site"), u.results.some((r) => r.depth) ? h("th", {}, "depth") : null),
          u.results.map((r) => h("tr", {},
            h("td", {}, symbolLink(r.key)),
            h("td", {}, h("span", { class: "badge low" }, r.rule)),
            h("td", { class: "small" }, r.reason, r.name ? h("span", { class: "mono" }, ` (${r.name})`) : ""),
            h("td", { class: "mono small" }, r.site ? h("a", { href: symbolHref(r.key, r.site.line) }, siteText(r.site)) : ""),
            r.depth ? h("td", {}, String(r.depth), r.of ? h("span", { class: "muted small" }, ` of ${label(r.of)}`) : "") : null)))
        : h("p", { class: "muted" }, "Nothing unresolved could call it."),
      u.truncated ? h("p", { class: "muted small" }, `${u.results.length} of ${u.total} listed`) : null);
  }

  function unresolvedPanel(info) {
    const list = info.unresolved, flags = info.dynamic;
    return h("div", { class: "panel", id: "unresolved" },
      h("h2", {}, "Unresolved in this code ", h("span", { class: "muted small" }, `${list.length}${flags.length ? ` + ${plural(flags.length, "dynamic feature")}` : ""}`)),
      list.length || flags.length
        ? h("table", { class: "list" },
          h("tr", {}, h("th", {}, "site"), h("th", {}, "reason"), h("th", {}, "call"), h("th", {}, "name")),
          list.map((u) => h("tr", { class: "unresolved-row" },
            h("td", { class: "mono small" }, h("a", { href: symbolHref(info.symbol.key, u.site.line) }, siteText(u.site))),
            h("td", {}, h("span", { class: "badge low" }, u.reason), u.covered ? h("span", { class: "badge", title: "every value that reaches it is a reference edge" }, "covered") : null),
            h("td", { class: "mono small" }, u.text),
            h("td", { class: "mono small" }, u.name || u.prefix))),
          flags.map((f) => h("tr", {},
            h("td", { class: "mono small" }, h("a", { href: symbolHref(info.symbol.key, f.site.line) }, siteText(f.site))),
            h("td", {}, h("span", { class: "badge low" }, `dynamic: ${f.kind}`)),
            h("td", { class: "small muted" }, "anything may run here"),
            h("td", { class: "mono small" }, f.prefix))))
        : h("p", { class: "muted" }, "Every call in this code was resolved."));
  }

  function codePanel(code, sites, line) {
    if (!code.available) return h("div", { class: "panel", id: "code" }, h("h2", {}, "Code"), h("p", { class: "muted" }, code.note));
    const pre = h("pre", { class: "code" });
    code.lines.forEach((text, i) => {
      const n = code.first + i;
      const cls = ["ln", sites.get(n) || "", n === line ? "hl" : ""].filter(Boolean).join(" ");
      pre.append(h("div", { class: cls, "data-line": n }, h("span", { class: "no" }, String(n)), h("span", { class: "tx" }, text)));
    });
    return h("div", { class: "panel", id: "code" },
      h("h2", {}, "Code ", h("span", { class: "muted small mono" }, `${code.path}:${code.first}–${code.last}`), code.stale ? h("span", { class: "badge stale" }, "changed since the last sync") : null),
      code.note ? h("p", { class: "muted small" }, code.note) : null,
      pre,
      code.truncated ? h("p", { class: "muted small" }, `the first ${code.lines.length} lines`) : null,
      h("p", { class: "muted small" }, h("span", { class: "badge medium" }, "blue line number"), " a resolved call, ", h("span", { class: "badge low" }, "orange"), " an unresolved one."));
  }

  // ---- the neighbourhood graph ---------------------------------------------------------------
  class Neighbourhood {
    constructor(box, info, focus) {
      this.box = box;
      this.info = info;
      this.focusKey = focus.key;
      this.nodes = new Map();
      this.edges = new Map();
      this.seq = 0;
      this.add({ key: focus.key, kind: focus.kind, path: focus.path, line: focus.line, unit: focus.unit }, 0).focus = true;
    }

    add(data, col) {
      let node = this.nodes.get(data.key);
      if (!node) {
        node = { ...data, col, seq: this.seq++, done: {}, x: 0, y: 0 };
        this.nodes.set(data.key, node);
      }
      return node;
    }

    // an engine answer of callers ("in") or callees ("out") of `key`
    loaded(key, dir, answer, limit) {
      const center = this.nodes.get(key);
      const step = dir === "in" ? -1 : 1;
      for (const r of answer.results) {
        const other = this.add({ key: r.key, kind: r.node_kind, path: r.path, line: r.line, unit: parts(r.key).unit }, center.col + step);
        const from = dir === "in" ? other.key : key;
        const to = dir === "in" ? key : other.key;
        const id = `${from}\u0000${to}`;
        const edge = this.edges.get(id) || { from, to, kinds: [] };
        const sig = `${r.kind}|${r.relation}|${siteText(r.site)}`;
        if (!edge.kinds.some((k) => k.sig === sig)) edge.kinds.push({ sig, kind: r.kind, confidence: r.confidence, relation: r.relation, site: r.site });
        this.edges.set(id, edge);
      }
      center.done[dir] = { shown: answer.results.length, total: answer.total, limit, uncertain: answer.uncertain ? answer.uncertain.total : 0 };
      const moreKey = `\u0000more:${dir}:${key}`;
      this.nodes.delete(moreKey);
      if (answer.total > answer.results.length) {
        const more = this.add({ key: moreKey, more: true, parent: key, dir, count: answer.total - answer.results.length }, center.col + step);
        more.seq = this.seq++;
      }
    }

    async expand(key, dir, limit) {
      const started = performance.now();
      const answer = await api(dir === "in" ? "callers" : "callees", { key, limit });
      this.loaded(key, dir, answer, limit);
      this.draw();
      const ms = Math.round(performance.now() - started);
      window.__pg.expands.push({ key, dir, ms, shown: answer.results.length, total: answer.total });
      const what = dir === "in" ? "callers" : "callees";
      this.info.textContent = `${what} of ${label(key)}: ${answer.results.length} of ${answer.total}` +
        (answer.uncertain && answer.uncertain.total ? `, and ${answer.uncertain.total} uncertain (see the symbol's page)` : "") + ` · loaded and drawn in ${ms} ms`;
      this.info.dataset.expands = String(window.__pg.expands.length);
      return answer;
    }

    async ask(key, dir, limit) {
      state.expansions.push([key, dir, limit]);
      try {
        await this.expand(key, dir, limit);
      } catch (error) {
        this.info.textContent = `could not expand ${label(key)}: ${error.message}`;
      }
    }

    async replay(list, live) {
      for (const [key, dir, limit] of list) {
        if (!live() || !this.nodes.has(key)) continue;
        try {
          const answer = await api(dir === "in" ? "callers" : "callees", { key, limit });
          this.loaded(key, dir, answer, limit);
        } catch (error) {
          /* a symbol the sync removed: its expansion goes */
        }
      }
      this.draw();
    }

    layout() {
      const cols = new Map();
      for (const n of this.nodes.values()) {
        if (!cols.has(n.col)) cols.set(n.col, []);
        cols.get(n.col).push(n);
      }
      const neighbours = new Map();
      const link = (a, b) => { if (!neighbours.has(a)) neighbours.set(a, []); neighbours.get(a).push(b); };
      for (const e of this.edges.values()) { link(e.from, e.to); link(e.to, e.from); }
      for (const n of this.nodes.values()) if (n.more) link(n.key, n.parent);
      const place = (col, inner) => {
        const list = cols.get(col);
        if (!list) return;
        for (const n of list) {
          const near = (neighbours.get(n.key) || []).map((k) => this.nodes.get(k)).filter((m) => m && m.col === inner && m.placed);
          n.want = n.focus ? 0 : near.length ? near.reduce((a, m) => a + m.y, 0) / near.length : 0;
          n.sub = near.length ? Math.min(...near.map((m) => m.seq)) : n.seq;
        }
        list.sort((a, b) => (a.focus ? -1 : b.focus ? 1 : 0) || a.want - b.want || (a.more ? 1 : 0) - (b.more ? 1 : 0) || a.seq - b.seq);
        let y = -Infinity;
        for (const n of list) { n.y = Math.max(n.want, y + ROWH); y = n.y; }
        if (!list.some((n) => n.focus)) {
          const shift = list.reduce((a, n) => a + n.want - n.y, 0) / list.length;
          for (const n of list) n.y += shift;
        }
        for (const n of list) { n.x = col * COLW; n.placed = true; }
      };
      for (const n of this.nodes.values()) n.placed = false;
      place(0, 0);
      const keys = [...cols.keys()];
      for (let c = -1; c >= Math.min(0, ...keys); c--) place(c, c + 1);
      for (let c = 1; c <= Math.max(0, ...keys); c++) place(c, c - 1);
    }

    draw() {
      this.layout();
      const nodes = [...this.nodes.values()];
      const minX = Math.min(...nodes.map((n) => n.x)) - 30, maxX = Math.max(...nodes.map((n) => n.x)) + W + 30;
      const minY = Math.min(...nodes.map((n) => n.y)) - 20, maxY = Math.max(...nodes.map((n) => n.y)) + H + 20;
      const width = maxX - minX, height = maxY - minY;
      const svg = s("svg", { class: "graph", width, height, viewBox: `${minX} ${minY} ${width} ${height}`, role: "img", "aria-label": `callers and callees of ${label(this.focusKey)}` });
      svg.append(s("defs", {},
        ["high", "medium", "low"].map((c) => s("marker", { id: `arrow-${c}`, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
          s("path", { d: "M0 0 L10 5 L0 10 z", style: null, class: `arrow-${c}` })))));
      const edgeLayer = s("g", { class: "edges" }), nodeLayer = s("g", { class: "nodes" });
      const many = this.edges.size > 40;
      for (const e of this.edges.values()) {
        const a = this.nodes.get(e.from), b = this.nodes.get(e.to);
        if (!a || !b) continue;
        const best = e.kinds.reduce((x, k) => (rank(k.confidence) > rank(x.confidence) ? k : x), e.kinds[0]);
        const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2;
        const dx = Math.max(50, Math.abs(x2 - x1) / 2);
        const d = `M${x1} ${y1} C${x1 + dx} ${y1}, ${x2 - dx} ${y2}, ${x2} ${y2}`;
        const mx = (x1 + 3 * (x1 + dx) + 3 * (x2 - dx) + x2) / 8, my = (y1 + y2) / 2;
        const text = e.kinds.map((k) => k.kind).filter((k, i, all) => all.indexOf(k) === i).join(", ") + (best.confidence === "low" ? " (low)" : "");
        const title = e.kinds.map((k) => `${label(e.from)} → ${label(e.to)}: ${k.relation}, kind ${k.kind}, confidence ${k.confidence}${k.site ? ` at ${siteText(k.site)}` : ""}`).join("\n");
        const g = s("g", { class: `edge ${best.confidence}`, "data-from": e.from, "data-to": e.to, "data-kind": best.kind, "data-confidence": best.confidence },
          s("title", {}, title),
          s("path", { d, "marker-end": `url(#arrow-${best.confidence})` }));
        if (!many || best.confidence === "low") {
          const width = text.length * 5.6 + 8;
          g.append(s("rect", { class: "bg", x: mx - width / 2, y: my - 8, width, height: 14, rx: 3 }));
          g.append(s("text", { x: mx, y: my + 3, "text-anchor": "middle" }, text));
        }
        edgeLayer.append(g);
      }
      for (const n of nodes) nodeLayer.append(this.nodeShape(n));
      svg.append(edgeLayer, nodeLayer);
      this.box.replaceChildren(svg);
      this.svg = svg;
      this.bounds = { minX, minY, width, height };
      this.fit();
      this.box.dataset.nodes = String(nodes.filter((n) => !n.more).length);
      this.box.dataset.edges = String(this.edges.size);
    }

    // once the box is on the page: shrink a wide graph to the box's width (down to 55 %, then it
    // scrolls), and scroll the focus into view the first time
    fit() {
      if (!this.box.isConnected || !this.bounds) return;
      const { minX, minY, width, height } = this.bounds;
      const scale = Math.min(1, Math.max(0.55, (this.box.clientWidth - 4) / width));
      this.svg.setAttribute("width", String(Math.round(width * scale)));
      this.svg.setAttribute("height", String(Math.round(height * scale)));
      this.box.dataset.scale = scale.toFixed(2);
      if (this.centred) return;
      const focus = this.nodes.get(this.focusKey);
      this.box.scrollLeft = Math.max(0, (focus.x - minX + W / 2) * scale - this.box.clientWidth / 2);
      this.box.scrollTop = Math.max(0, (focus.y - minY + H / 2) * scale - this.box.clientHeight / 2);
      this.centred = true;
    }

    nodeShape(n) {
      if (n.more) {
        const g = s("g", { class: "node more", transform: `translate(${n.x},${n.y})`, "data-more": n.parent, "data-dir": n.dir });
        g.append(s("rect", { width: W, height: H }), s("text", { x: 12, y: 24 }, `+ ${n.count.toLocaleString()} more ${n.dir === "in" ? "callers" : "callees"}`));
        g.classList.add("handle");
        g.addEventListener("click", () => {
          const parent = this.nodes.get(n.parent);
          this.ask(n.parent, n.dir, (parent.done[n.dir] ? parent.done[n.dir].limit : PAGE) + PAGE * 2);
        });
        return g;
      }
      const k = parts(n.key);
      const cls = ["node", n.focus ? "focus" : "", n.kind === "external" ? "external" : "", k.unit ? "unit" : ""].filter(Boolean).join(" ");
      const g = s("g", { class: cls, transform: `translate(${n.x},${n.y})`, "data-node-key": n.key });
      g.append(s("title", {}, `${n.key}\n${n.kind || ""} ${where(n.path, n.line, k.unit)}`));
      g.append(s("rect", { width: W, height: H }));
      const a = s("a", { href: symbolHref(n.key), class: "label" });
      a.append(s("text", { x: 14, y: 17 }, clip(label(n.key), 30)), s("text", { x: 14, y: 32, class: "sub" }, clip(n.kind === "external" ? "external" : where(n.path, n.line, k.unit), 34)));
      g.append(a);
      for (const dir of ["in", "out"]) {
        const done = n.done[dir];
        const hx = dir === "in" ? 0 : W;
        const text = done ? String(done.total) : "+";
        const handle = s("g", { class: `handle${done ? " done" : ""}`, "data-dir": dir, "data-key": n.key, transform: `translate(${hx},${H / 2})` },
          s("title", {}, done ? `${done.total} ${dir === "in" ? "callers" : "callees"} (${done.shown} shown)` : `show the ${dir === "in" ? "callers" : "callees"} of ${label(n.key)}`),
          s("circle", { r: text.length > 2 ? 12 : 9 }),
          s("text", {}, text));
        if (!done) handle.addEventListener("click", () => this.ask(n.key, dir, PAGE));
        g.append(handle);
      }
      return g;
    }
  }
  const rank = (c) => ({ high: 3, medium: 2, low: 1 })[c] || 0;
  const clip = (text, n) => (text.length > n ? text.slice(0, n - 1) + "…" : text);

  // ---- view: impact --------------------------------------------------------------------------
  async function viewImpact(el, key, params, live) {
    const depth = Math.min(6, Math.max(1, Number(params.get("depth")) || 2));
    const answer = await api("impact", { key, depth });
    if (!live()) return;
    const impacted = answer.impacted.filter((i) => i.depth > 0);
    const byPath = new Map();
    for (const item of impacted) {
      if (!byPath.has(item.path)) byPath.set(item.path, []);
      byPath.get(item.path).push(item);
    }
    const maxCount = Math.max(1, ...answer.perDepth.map((d) => d.count));
    add(el, h("div", { class: "panel", id: "impact-head" },
      h("h1", {}, "Impact of ", symbolLink(answer.root)),
      h("div", { class: "muted small" }, "What depends on it along calls, extends and implements (imports are not followed)."),
      h("div", { class: "actions" }, h("span", { class: "muted" }, "depth"),
        [1, 2, 3, 4, 5, 6].map((d) => h("a", { class: `button${d === depth ? " on" : ""}`, href: impactHref(answer.root, d), "data-depth": d }, String(d)))),
      h("p", { id: "impact-total" }, h("strong", {}, plural(impacted.length, "symbol")), ` within depth ${depth}, in ${plural(answer.files.length, "file")} · ${plural(answer.edgeCount, "edge")} walked`,
        answer.status ? h("span", { class: "badge" }, answer.status) : null),
      h("div", { class: "bars", id: "per-depth" }, answer.perDepth.map((d) => h("div", { class: "bar", title: `${d.count} at depth ${d.depth}` },
        h("span", { class: "n" }, d.count.toLocaleString()),
        (() => { const f = h("div", { class: "fill" }); f.style.height = `${Math.round((d.count / maxCount) * 44)}px`; return f; })(),
        h("span", { class: "muted" }, `depth ${d.depth}`))))));
    if (answer.uncertain) add(el, uncertainPanel(answer, "callers within the radius"));
    const list = h("div", { id: "impact-files" });
    answer.files.forEach((group, index) => {
      const items = byPath.get(group.path) || [];
      const det = h("details", { class: "file", "data-path": group.path });
      det.open = index < 8;
      const chips = Object.entries(group.depths).map(([d, n]) => h("span", { class: "badge" }, `d${d}: ${n}`));
      det.append(h("summary", {}, h("span", { class: "mono" }, group.path || "(external)"), h("strong", {}, String(group.count)), chips));
      const fill = () => {
        if (det.dataset.filled) return;
        det.dataset.filled = "1";
        det.append(h("ul", {}, items.map((i) => h("li", {},
          h("span", { class: "badge" }, `d${i.depth}`), symbolLink(i.key, null), " ",
          h("span", { class: "muted small mono" }, i.line ? `:${i.line}` : ""),
          i.low_confidence ? h("span", { class: "badge low", title: "every shortest way to it crosses a low-confidence edge" }, "low confidence") : null,
          i.uncertain ? h("span", { class: "badge low" }, "uncertain") : null))));
      };
      if (det.open) fill();
      det.addEventListener("toggle", fill);
      list.append(det);
    });
    add(el, h("div", { class: "panel" }, h("h2", {}, "By file"), impacted.length ? list : h("p", { class: "muted" }, "Nothing depends on it through an edge of the graph.")));
  }

  // ---- view: reach ---------------------------------------------------------------------------
  const STATUS_TEXT = {
    found: "code that runs reaches it: the shortest path, hop by hop",
    "not-found": "no path reaches it, and nothing the tool could not resolve concerns it",
    uncertain: "no path reaches it, but something the tool could not resolve might: the causes below",
    "no-such-target": "no symbol has that key, and nothing unresolved could name it",
  };

  async function viewReach(el, params, live) {
    const targets = params.getAll("target");
    const sources = params.getAll("source");
    const only = params.get("only") === "1";
    const depth = Number(params.get("depth")) || 0;
    const form = h("form", { class: "reachform", id: "reach-form" },
      h("label", { for: "reach-target" }, "target(s)"),
      h("input", { type: "text", id: "reach-target", placeholder: "yaml//load, subprocess//*, app/db.py//connect", value: targets.join(", ") }),
      h("label", { for: "reach-source" }, "from"),
      h("input", { type: "text", id: "reach-source", placeholder: "the roots (default), or sources: path:Qualified.name, a key", value: sources.join(", ") }),
      h("span", {}),
      h("label", {}, h("input", { type: "checkbox", id: "reach-only", checked: only }), " from the sources only (not the roots)"),
      h("label", { for: "reach-depth" }, "max depth"),
      h("div", {}, h("input", { type: "text", id: "reach-depth", inputmode: "numeric", size: 6, placeholder: "no cap", value: depth || "" }),
        h("span", { class: "muted small" }, " hops from a start; a search stopped by it says where (budget)")),
      h("span", {}),
      h("div", {}, h("button", { type: "submit", class: "primary", id: "reach-run" }, "Does it reach?")));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const split = (v) => v.split(",").map((x) => x.trim()).filter(Boolean);
      location.hash = reachHref(split($("#reach-target").value), split($("#reach-source").value), $("#reach-only").checked, Number($("#reach-depth").value) || 0);
    });
    const examples = ["yaml//load", "pickle//loads", "subprocess//*", "os//system", "builtins//eval", "requests//*"];
    add(el, h("div", { class: "panel" },
      h("h1", {}, "Reach"),
      h("p", { class: "muted" }, "Does code that runs (the roots: mains, manifest scripts, handlers, tests; or the sources you give) reach a target? A target is a key: the module as its language writes it, // for its separator, then the names; //* matches every key under it."),
      form,
      h("p", { class: "examples" }, "try: ", examples.map((t) => h("a", { href: reachHref([t], sources, only, depth), class: "mono" }, t)))));
    if (!targets.length) {
      api("reach", { prepare: 1 }).catch(() => {}); // the server starts reading the graph meanwhile
      return;
    }
    const started = performance.now();
    const wait = h("p", { class: "muted", id: "reach-wait" }, "Searching… (the first reach of a server reads the whole stored graph: seconds on a large project; later ones reuse it)");
    add(el, wait);
    const answer = await api("reach", { target: targets, source: sources, sources_only: only ? "1" : "", max_depth: depth || "" });
    if (!live()) return;
    wait.remove();
    window.__pg.reach = Math.round(performance.now() - started);
    for (const r of answer.results) add(el, reachResult(r));
  }

  function reachResult(r) {
    const panel = h("div", { class: "panel reach-result", "data-target": r.target, "data-status": r.status },
      h("h2", {}, h("code", {}, r.target), " ", h("span", { class: `status ${r.status}` }, r.status)),
      h("p", { class: "muted" }, STATUS_TEXT[r.status] || ""));
    if (r.path.length) add(panel, h("h3", {}, `Path (${plural(r.path.length - 1, "hop")})`), hops(r.path));
    if (r.uncertainties.length) {
      const counts = (r.searched && r.searched.uncertainties) || {};
      add(panel, 
        h("h3", {}, "Uncertainties ", h("span", { class: "muted small" }, Object.entries(counts).map(([k, n]) => `${k}: ${n}`).join(", "))),
        h("table", { class: "list uncertainties" },
          h("tr", {}, h("th", {}, "kind"), h("th", {}, "reason"), h("th", {}, "name"), h("th", {}, "site"), h("th", {}, "in")),
          r.uncertainties.map((u) => h("tr", {},
            h("td", {}, h("span", { class: "badge low" }, u.kind)),
            h("td", { class: "small" }, u.reason),
            h("td", { class: "mono small" }, u.name),
            h("td", { class: "mono small" }, u.site ? (u.caller ? h("a", { href: symbolHref(u.caller, u.site.line), class: "site-link" }, siteText(u.site)) : siteText(u.site)) : ""),
            h("td", {}, u.caller ? symbolLink(u.caller) : "")))),
        listedNote(r, counts));
    }
    if (r.sites.length) {
      add(panel, h("h3", {}, `Where the target is called (${r.sites.length})`),
        h("ul", { class: "mono small" }, r.sites.slice(0, 30).map((site) => h("li", {}, siteText(site)))),
        r.sites.length > 30 ? h("p", { class: "muted small" }, `and ${r.sites.length - 30} more`) : null);
    }
    const sr = r.searched || {};
    add(panel, h("p", { class: "muted small searched" },
      `Searched ${sr.mode === "sources-only" ? "from the sources only" : "from the roots and sources"}: ${plural(sr.roots || 0, "start")}, ${plural(sr.reached || 0, "symbol")} reached, in ${((sr.seconds || 0) * 1000).toFixed(1)} ms (reach rules v${sr.version}).`,
      r.status === "found" ? "" : " The search stopped where no edge leads on; every place it could not follow is an uncertainty above."));
    return panel;
  }

  function listedNote(r, counts) {
    const total = Object.values(counts).reduce((a, n) => a + n, 0);
    return total > r.uncertainties.length ? h("p", { class: "muted small" }, `${r.uncertainties.length} of ${total} listed (three per kind)`) : null;
  }

  function hops(path) {
    const out = h("div", { class: "hops" });
    path.forEach((hop, i) => {
      if (i > 0) {
        const prev = path[i - 1];
        out.append(h("div", { class: `arrow ${hop.confidence}`, "data-kind": hop.kind },
          h("span", { class: "stem" }),
          confidenceBadge(hop.kind, hop.confidence || "high"),
          hop.site ? ["at ", h("a", { href: symbolHref(prev.key, hop.site.line), class: "mono" }, siteText(hop.site))] : null));
      }
      const node = hop.node || {};
      out.append(h("div", { class: `hop${i === path.length - 1 ? " target" : ""}`, "data-key": hop.key },
        i === 0 ? h("span", { class: "badge root" }, `root: ${hop.kind}`) : null,
        symbolLink(hop.key, null),
        h("span", { class: "muted small mono" }, node.kind === "external" ? "external" : where(node.path, node.line, node.unit))));
    });
    return out;
  }

  // ---- view: files ---------------------------------------------------------------------------
  async function viewFiles(el, params, live) {
    const unit = params.get("unit") || "";
    const status = params.get("status") || "";
    const answer = await api("files", { unit });
    if (!live()) return;
    const filter = h("input", { type: "text", id: "file-filter", placeholder: "filter paths" });
    const table = h("table", { class: "list", id: "file-table" });
    const more = h("p", { class: "muted small" });
    let limit = 500;
    const fill = () => {
      const words = filter.value.trim().toLowerCase();
      const rows = answer.files.filter((f) => (!status || f.status === status) && (!words || f.path.toLowerCase().includes(words)));
      table.replaceChildren();
      add(table, h("tr", {}, h("th", {}, "path"), h("th", {}, "language"), h("th", {}, "status"), h("th", {}, "reason")),
        rows.slice(0, limit).map((f) => h("tr", { "data-status": f.status },
          h("td", { class: "mono small" }, f.path),
          h("td", { class: "small" }, f.language),
          h("td", {}, h("span", { class: `badge ${f.status === "indexed" || f.status === "cached" ? "" : "low"}` }, f.status)),
          h("td", { class: "small" }, f.reason))));
      more.replaceChildren(rows.length > limit ? h("button", { onclick: () => { limit = rows.length; fill(); } }, `show all ${rows.length.toLocaleString()}`) : `${plural(rows.length, "file")}`);
    };
    filter.addEventListener("input", fill);
    const base = unit ? `#/files?unit=${encodeURIComponent(unit)}&` : "#/files?";
    const chips = h("div", { class: "actions", id: "file-statuses" },
      h("a", { class: `button${status ? "" : " on"}`, href: base.slice(0, -1) }, `all ${answer.files.length.toLocaleString()}`),
      Object.entries(answer.statuses).map(([st, n]) => h("a", { class: `button${st === status ? " on" : ""}`, href: `${base}status=${encodeURIComponent(st)}`, "data-status": st }, `${st} ${n.toLocaleString()}`)));
    add(el, h("div", { class: "panel" },
      h("h1", {}, unit ? ["Files of ", h("code", {}, unit)] : "Files"),
      unit ? h("p", {}, h("a", { href: "#/files" }, "← the project's files")) : h("p", { class: "muted" }, "Every project file with its index status (indexed, cached, missing, failed, truncated) and the reason of a file that did not index fully."),
      chips, h("div", { class: "actions" }, filter), table, more));
    fill();
    if (!unit) {
      add(el, h("div", { class: "panel", id: "units" },
        h("h2", {}, `Units of dependency code (${answer.units.length})`),
        answer.units.length
          ? h("table", { class: "list" },
            h("tr", {}, h("th", {}, "unit"), h("th", {}, "ecosystem"), h("th", {}, "package"), h("th", {}, "version"), h("th", {}, "files"), h("th", {}, "statuses")),
            answer.units.map((u) => h("tr", { "data-unit": u.unit },
              h("td", { class: "mono small" }, h("a", { href: `#/files?unit=${encodeURIComponent(u.unit)}` }, u.unit)),
              h("td", {}, u.ecosystem), h("td", {}, u.package), h("td", { class: "mono" }, u.version),
              h("td", {}, u.files.toLocaleString()),
              h("td", { class: "small" }, Object.entries(u.statuses).map(([st, n]) => `${st} ${n}`).join(", ")))))
          : h("p", { class: "muted" }, "No dependency code is indexed (index with --deps auto in a project with a virtual environment or node_modules, or --deps stdlib).")));
    }
  }

  // ---- start ---------------------------------------------------------------------------------
  async function start() {
    setupSearch();
    window.addEventListener("hashchange", () => render());
    try {
      await loadStatus();
    } catch (error) {
      $("#view").replaceChildren(errorBox(error));
      return;
    }
    connectLive();
    await render();
    window.__pg.ready = Math.round(performance.now());
    document.body.dataset.ready = "1";
  }
  start();
})();
