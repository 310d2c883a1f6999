// The KafkaProtobuf operations page. Everything it shows comes from its own JSON API (api/...), and everything from
// Kafka or a registry is put in the page as text (textContent), never as markup.
"use strict";
(function () {
  const state = { session: null, cursor: null, topic: null, planId: null, busy: false };
  const $ = (id) => document.getElementById(id);

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(props || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === "text") node.textContent = String(value);
      else if (name === "className") node.className = value;
      else if (name.startsWith("on")) node.addEventListener(name.substring(2), value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function say(text, bad) {
    const message = $("message");
    message.textContent = text || "";
    message.hidden = !text;
    message.className = bad ? "bad" : "";
  }

  async function api(path, body) {
    const init = { headers: { Accept: "application/json" }, credentials: "same-origin" };
    if (body !== undefined) {
      init.method = "POST";
      init.headers["Content-Type"] = "application/json";
      if (state.session && state.session.antiforgeryHeader) init.headers[state.session.antiforgeryHeader] = state.session.antiforgeryToken;
      init.body = JSON.stringify(body);
    }
    const response = await fetch("api/" + path, init);
    let data = null;
    try { data = await response.json(); } catch { data = null; }
    if (!response.ok) {
      const error = new Error((data && (data.error || data.message)) || ("HTTP " + response.status));
      error.status = response.status;
      error.data = data;
      throw error;
    }
    return data;
  }

  const number = (n) => (typeof n === "number" ? n.toLocaleString("en-US") : "");
  const time = (t) => (t ? new Date(t).toLocaleString() : "");

  // Consumers ---------------------------------------------------------------------------------------------------
  async function refreshConsumers() {
    try {
      const view = await api("consumers");
      renderConsumers(view.consumers);
      $("updated").textContent = "updated " + new Date(view.at).toLocaleTimeString();
    } catch (e) {
      $("updated").textContent = "not updated: " + e.message;
    }
  }

  function renderConsumers(consumers) {
    const list = $("consumer-list");
    if (consumers.length === 0) {
      list.replaceChildren(el("p", { className: "muted", text: "No hosted consumer runs in this process." }));
      return;
    }
    list.replaceChildren(...consumers.map(renderConsumer));
  }

  function renderConsumer(c) {
    const canAct = state.session && state.session.canAct;
    const header = ["Topic", "Partition", "Position", "End", "Lag", "Paused for", "Waiting for"];
    if (canAct) header.push("Act");
    const rows = c.partitions.map((p) => el("tr", { "data-partition": p.topic + "/" + p.partition },
      el("td", { text: p.topic }),
      el("td", { className: "num", text: p.partition }),
      el("td", { className: "num", text: p.position == null ? "—" : number(p.position) }),
      el("td", { className: "num", text: p.end == null ? "—" : number(p.end) }),
      el("td", { className: "num lag", text: p.lag == null ? "—" : number(p.lag) }),
      el("td", { className: p.pausedFor.length ? "paused" : "" },
        p.pausedFor.join(", ") + (p.resumesAt ? " until " + time(p.resumesAt) : "")),
      el("td", { className: "wrap", text: p.waitingFor || "" }),
      canAct ? el("td", {}, partitionActions(c, p)) : null));
    return el("div", { className: "consumer", "data-consumer": c.name },
      el("h3", {}, c.name + " ", el("span", { className: "state-" + c.state, text: c.state })),
      el("div", { className: "facts" },
        el("span", {}, "group ", el("span", { className: "code", text: c.groupId || "" })),
        el("span", {}, "member ", el("span", { className: "code", text: c.memberId || "(not joined)" })),
        el("span", { text: "topics " + c.topics.join(", ") }),
        el("span", { text: "lag " + number(c.lag) }),
        el("span", { text: "in handlers " + number(c.recordsInHandlers) }),
        c.failedAttempts ? el("span", { className: "error", text: "handler failing, attempt " + c.failedAttempts }) : null,
        c.deadLetterTopic ? el("span", { text: "dead letters → " + c.deadLetterTopic }) : null),
      c.failure ? el("p", { className: "error", text: "Failed: " + c.failure }) : null,
      c.lastError ? el("p", { className: "error" }, "Last error (" + time(c.lastErrorAt) + "): ", c.lastError) : null,
      el("div", { className: "scroll" }, el("table", {},
        el("thead", {}, el("tr", {}, header.map((h) => el("th", { text: h, className: ["Partition", "Position", "End", "Lag"].includes(h) ? "num" : "" })))),
        el("tbody", {}, rows.length ? rows : el("tr", {}, el("td", { colspan: header.length, className: "muted", text: "No partitions assigned." }))))));
  }

  function partitionActions(c, p) {
    const offset = el("input", { type: "number", min: "0", placeholder: "offset", "aria-label": "rewind to offset" });
    const act = (action, body) => async () => {
      try {
        const result = await api("consumers/" + encodeURIComponent(c.name) + "/" + action, body());
        say(action + " " + p.topic + " [" + p.partition + "]: " + result.message);
      } catch (e) {
        say(action + " " + p.topic + " [" + p.partition + "]: " + e.message, true);
      }
      refreshConsumers();
    };
    const target = () => ({ topic: p.topic, partition: p.partition });
    const paused = p.pausedFor.includes("Operator");
    return el("span", { className: "rewind" },
      paused
        ? el("button", { type: "button", text: "Resume", onclick: act("resume", target) })
        : el("button", { type: "button", text: "Pause", onclick: act("pause", target) }),
      offset,
      el("button", { type: "button", text: "Rewind", onclick: act("rewind", () => ({ ...target(), offset: Number(offset.value) })) }));
  }

  // Dead letters ------------------------------------------------------------------------------------------------
  async function loadDeadLetters(older) {
    const topic = $("dlq-topic").value;
    if (!topic) return;
    state.topic = topic;
    const cursor = older ? state.cursor : null;
    $("dlq-info").textContent = "reading…";
    try {
      const page = await api("dead-letters/" + encodeURIComponent(topic) + (cursor ? "?before=" + encodeURIComponent(cursor) : ""));
      state.cursor = page.older || null;
      $("dlq-older").disabled = !page.older;
      $("dlq-info").textContent = number(page.count) + " shown of " + number(page.total) + " in the topic" + (older ? " (older window)" : " (newest)");
      $("dlq-groups").replaceChildren(...(page.groups.length ? page.groups.map(renderGroup) : [el("p", { className: "muted", text: "No dead letters here." })]));
    } catch (e) {
      $("dlq-info").textContent = "";
      $("dlq-groups").replaceChildren(el("p", { className: "error", text: e.message }));
    }
  }

  function renderGroup(g) {
    return el("details", { className: "group", open: true },
      el("summary", {},
        el("strong", { text: g.code }), " · ", g.component, " · ", el("span", { className: "pattern", text: g.pattern || "(no message)" }),
        el("span", { className: "muted", text: " — " + number(g.count) + (g.count === 1 ? " record" : " records") })),
      g.example && g.example !== g.pattern ? el("div", { className: "muted example", text: "e.g. " + g.example }) : null,
      g.records.map(renderRecord));
  }

  function renderRecord(r) {
    return el("div", { className: "record", "data-offset": r.partition + "@" + r.offset, "data-provenance": r.provenance },
      el("div", { className: "meta", text: "[" + r.partition + "] @" + r.offset + " · " + time(r.timestamp) + " · from " + r.source + (r.redriveCount ? " · redriven " + r.redriveCount + "×" : "") }),
      r.provenance === "unverified" ? el("div", { className: "error provenance", text: "Its source is not believed: a redrive leaves it." }) : null,
      el("div", { className: "error", text: r.errorMessage }),
      renderPart("Key", r, "key", r.key),
      renderPart("Value", r, "value", r.value),
      r.headers.length ? el("div", { className: "scroll" }, el("table", { className: "headers" },
        el("tbody", {}, r.headers.map((h) => el("tr", {}, el("td", { className: "code", text: h.name }), el("td", { className: "code wrap", text: h.value })))))) : null);
  }

  function renderPart(title, record, part, view) {
    const info = [view.kind, view.typeName, view.schemaId ? "schema " + view.schemaId : null, number(view.size) + " bytes"].filter(Boolean).join(" · ");
    const raw = el("div", {});
    const button = el("button", { type: "button", text: "Raw bytes", onclick: async () => {
      try {
        const bytes = await api("dead-letters/" + encodeURIComponent(state.topic) + "/" + record.partition + "/" + record.offset + "/" + part);
        raw.replaceChildren(el("pre", { className: "raw", text: bytes.base64 }), bytes.cut ? el("div", { className: "cut", text: "first bytes only of " + number(bytes.size) }) : "");
      } catch (e) {
        raw.replaceChildren(el("p", { className: "error", text: e.message }));
      }
    } });
    return el("div", {},
      el("div", { className: "part-title" }, title + " ", el("span", { className: "muted", text: info }), " ", view.kind === "null" ? null : button),
      view.problem ? el("div", { className: "error", text: view.problem }) : null,
      view.kind === "null" ? null : el("pre", { className: "part " + part, text: view.text }),
      view.cut ? el("div", { className: "cut", text: "cut: " + number(view.size) + " bytes in all" }) : null,
      raw);
  }

  // Redrive -----------------------------------------------------------------------------------------------------
  function filters() {
    const form = new FormData($("redrive-form"));
    const text = (name) => (form.get(name) || "").toString().trim() || null;
    const date = (name) => (text(name) ? new Date(text(name)).toISOString() : null);
    return { topic: $("dlq-topic").value, sourceTopic: text("sourceTopic"), errorCode: text("errorCode"), component: text("component"), since: date("since"), until: date("until"), key: text("key") };
  }

  async function dryRun(event) {
    event.preventDefault();
    state.planId = null;
    $("redrive-run").disabled = true;
    $("dry-run-result").replaceChildren(el("p", { className: "muted", text: "Dry run…" }));
    try {
      const result = await api("redrive/dry-run", filters());
      state.planId = result.planId;
      $("redrive-run").disabled = result.wouldWrite === 0;
      $("redrive-run").textContent = "Redrive " + number(result.wouldWrite) + (result.wouldWrite === 1 ? " record" : " records");
      $("dry-run-result").replaceChildren(
        el("p", { id: "dry-run-summary", text: "Would write " + number(result.wouldWrite) + "; skip " + number(result.skippedByFilter) + " by filter, " + number(result.skippedForLoops) + " redriven too often, " + number(result.skippedWithoutSource) + " without a source, " + number(result.skippedUnverified) + " whose source is not believed. Filters: " + result.filters }),
        el("div", { className: "scroll" }, el("table", {},
          el("thead", {}, el("tr", {}, ["Partition", "Offset", "From", "Code", "A redrive"].map((h) => el("th", { text: h })))),
          el("tbody", {}, result.items.map((i) => el("tr", {}, el("td", { text: i.partition }), el("td", { text: i.offset }), el("td", { text: i.source || "" }), el("td", { text: i.code || "" }), el("td", { text: i.outcome })))))),
        result.itemsCut ? el("p", { className: "muted", text: "More than the first 200 are not listed." }) : "");
    } catch (e) {
      $("dry-run-result").replaceChildren(el("p", { className: "error", text: e.message }));
    }
  }

  async function redrive() {
    if (!state.planId || state.busy) return;
    state.busy = true;
    $("redrive-run").disabled = true; // one click, one run: the server refuses a second one anyway
    try {
      const run = await api("redrive/runs", { planId: state.planId });
      say("Redrive " + run.id + " started.");
    } catch (e) {
      say(e.message, true);
    } finally {
      state.planId = null;
      state.busy = false;
      refreshRuns();
    }
  }

  async function refreshRuns() {
    try {
      const view = await api("redrive/runs");
      if (view.runs.length === 0) return;
      $("runs").replaceChildren(el("div", { className: "scroll" }, el("table", {},
        el("thead", {}, el("tr", {}, ["Run", "Topic", "Filters", "By", "State", "Written", "Skipped", "Failed", "Planned", "Started", "Ended"].map((h) => el("th", { text: h })))),
        el("tbody", {}, view.runs.map((r) => el("tr", { "data-run": r.id, "data-state": r.state },
          el("td", { className: "code", text: r.id.substring(0, 8) }), el("td", { text: r.topic }), el("td", { className: "wrap", text: r.filters }),
          el("td", { text: r.user }), el("td", { className: r.state === "stopped" ? "error" : "", text: r.state + (r.failure ? ": " + r.failure : "") + (r.state === "stopped" ? " (a new dry run shows what is left)" : "") }),
          el("td", { className: "num written", text: number(r.written) }), el("td", { className: "num", text: number(r.skipped) }), el("td", { className: "num", text: number(r.failed) }),
          el("td", { className: "num", text: number(r.planned) }), el("td", { text: time(r.startedAt) }), el("td", { text: time(r.endedAt) })))))));
    } catch (e) {
      // shown on the next refresh
    }
  }

  // Start -------------------------------------------------------------------------------------------------------
  async function start() {
    try {
      state.session = await api("session");
    } catch (e) {
      say("The page cannot start: " + e.message, true);
      return;
    }
    $("user").textContent = state.session.user + (state.session.canAct ? " · may act" : " · may look");
    const topics = state.session.deadLetterTopics;
    $("dlq-topic").replaceChildren(...topics.map((t) => el("option", { value: t, text: t })));
    if (!state.session.deadLettersReadable) {
      $("dlq-groups").replaceChildren(el("p", { className: "muted", text: "Dead letters are not readable here (the page has no Kafka settings)." }));
    } else if (topics.length === 0) {
      $("dlq-groups").replaceChildren(el("p", { className: "muted", text: "No dead-letter topic is set." }));
    }
    $("redrive").hidden = !(state.session.canAct && state.session.deadLettersReadable && topics.length > 0);
    $("dlq-topic").addEventListener("change", () => loadDeadLetters(false));
    $("dlq-newest").addEventListener("click", () => loadDeadLetters(false));
    $("dlq-older").addEventListener("click", () => loadDeadLetters(true));
    $("redrive-form").addEventListener("submit", dryRun);
    $("redrive-run").addEventListener("click", redrive);
    await refreshConsumers();
    if (state.session.deadLettersReadable && topics.length > 0) await loadDeadLetters(false);
    await refreshRuns();
    setInterval(refreshConsumers, 2000);
    setInterval(refreshRuns, 2000);
  }

  document.addEventListener("DOMContentLoaded", start);
})();
