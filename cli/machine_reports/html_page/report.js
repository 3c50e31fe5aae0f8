// The HTML report's script (cli/machine_reports/html_report.py): the files and findings tables,
// sorted, filtered and shown a page at a time, and each finding's excerpt. Every text from the
// data is set as textContent, never parsed as markup.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const rows = data.rows;
  // rows[i]: file index, line, column, code, tool, call id, pointer, fix, message index,
  // messages, position tenth, message, origin of the result the fix writes (or null)
  const FIX_WORDS = { safe: "fix", unsafe: "unsafe fix", none: "held back" };
  const PAGE = 50;
  const FILE_PAGE = 15;
  let excerpts = null;
  const state = { query: "", rule: "", fix: "", file: null, key: "file", down: false, page: 0, open: new Set() };
  const files = { query: "", key: 1, down: true, page: 0 };

  function count(n, noun) {
    return `${n} ${noun}${n === 1 ? "" : "s"}`;
  }

  function el(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  function excerptOf(index) {
    if (excerpts === null) {
      excerpts = JSON.parse(document.getElementById("report-excerpts").textContent);
    }
    return excerpts[index];
  }

  const FIELDS = {
    file: (r) => data.files[r[0]],
    line: (r) => (r[1] === null ? 0 : r[1]),
    code: (r) => r[3],
    tool: (r) => (r[4] === null ? "" : r[4]),
    call: (r) => (r[5] === null ? "" : r[5]),
    fix: (r) => r[7],
    position: (r) => r[8],
    pointer: (r) => r[6],
  };

  function compare(a, b) {
    if (typeof a === "number" && typeof b === "number") return a - b;
    return String(a).localeCompare(String(b));
  }

  function matching() {
    const query = state.query.toLowerCase();
    const found = [];
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      if (state.file !== null && r[0] !== state.file) continue;
      if (state.rule && r[3] !== state.rule) continue;
      if (state.fix && r[7] !== state.fix) continue;
      if (query) {
        const text = [data.files[r[0]], r[3], r[4], r[5], r[6], r[11]].join("\u0000").toLowerCase();
        if (text.indexOf(query) < 0) continue;
      }
      found.push(i);
    }
    const field = FIELDS[state.key];
    const sign = state.down ? -1 : 1;
    found.sort((a, b) => sign * compare(field(rows[a]), field(rows[b])) || a - b);
    return found;
  }

  function pager(container, page, pages, total, noun, go) {
    container.replaceChildren();
    const before = el("button", "‹ Previous");
    before.disabled = page <= 0;
    before.addEventListener("click", () => go(page - 1));
    const after = el("button", "Next ›");
    after.disabled = page >= pages - 1;
    after.addEventListener("click", () => go(page + 1));
    const where = el("span", `Page ${pages ? page + 1 : 0} of ${pages} · ${count(total, noun)}`);
    container.append(before, where, after);
  }

  function excerptRow(index) {
    const tr = el("tr", null, "detail");
    const td = el("td");
    td.colSpan = 8;
    const r = rows[index];
    td.append(el("p", r[11], "message"));
    const items = excerptOf(index);
    if (!items) {
      td.append(el("p", "No messages kept for this finding.", "empty"));
    } else {
      const list = el("ol", null, "excerpt");
      for (const [kind, title, text] of items) {
        const li = el("li", null, kind);
        li.append(el("span", title, "who"));
        if (text) li.append(el("pre", text));
        list.append(li);
      }
      td.append(list);
    }
    tr.append(td);
    return tr;
  }

  function renderFindings() {
    const found = matching();
    const pages = Math.ceil(found.length / PAGE);
    state.page = Math.max(0, Math.min(state.page, pages - 1));
    const body = document.querySelector("#findings tbody");
    body.replaceChildren();
    for (const index of found.slice(state.page * PAGE, (state.page + 1) * PAGE)) {
      const r = rows[index];
      const tr = el("tr", null, "row" + (state.open.has(index) ? " open" : ""));
      tr.tabIndex = 0;
      const where = r[1] === null ? "" : r[2] === null ? r[1] : `${r[1]}:${r[2]}`;
      tr.append(
        el("td", data.files[r[0]], "path"),
        el("td", where, "num"),
        el("td", r[3], "code"),
        el("td", r[4] === null ? "—" : r[4]),
        el("td", r[5] === null ? "—" : r[5], "mono"),
        el("td", FIX_WORDS[r[7]] + (r[12] ? ` (${r[12]})` : ""), "fix " + r[7]),
        el("td", `${r[8] + 1} of ${r[9]}`, "num"),
        el("td", r[6] || "/", "mono dim"),
      );
      const toggle = () => {
        if (state.open.has(index)) state.open.delete(index);
        else state.open.add(index);
        renderFindings();
      };
      tr.addEventListener("click", toggle);
      tr.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          toggle();
        }
      });
      body.append(tr);
      if (state.open.has(index)) body.append(excerptRow(index));
    }
    if (!found.length) {
      const tr = el("tr");
      const td = el("td", rows.length ? "No finding matches." : "No findings: every conversation is clean.", "empty");
      td.colSpan = 8;
      tr.append(td);
      body.append(tr);
    }
    let label = `${found.length} of ${rows.length}`;
    if (state.file !== null) label += ` · in ${data.files[state.file]}`;
    document.getElementById("row-count").textContent = label;
    pager(document.getElementById("findings-pager"), state.page, pages, found.length, "finding", (page) => {
      state.page = page;
      renderFindings();
    });
    marks("#findings", state.key, state.down);
  }

  const perFile = data.files.map((name) => [name, 0, 0, 0, 0]);
  for (const r of rows) {
    const counts = perFile[r[0]];
    counts[1] += 1;
    counts[{ safe: 2, unsafe: 3, none: 4 }[r[7]]] += 1;
  }
  const fileIndex = new Map(data.files.map((name, i) => [name, i]));

  function renderFiles() {
    const query = files.query.toLowerCase();
    const shown = perFile.filter((f) => f[1] > 0 && (!query || f[0].toLowerCase().indexOf(query) >= 0));
    const sign = files.down ? -1 : 1;
    shown.sort((a, b) => sign * compare(a[files.key], b[files.key]) || compare(a[0], b[0]));
    const pages = Math.ceil(shown.length / FILE_PAGE);
    files.page = Math.max(0, Math.min(files.page, pages - 1));
    const body = document.querySelector("#files tbody");
    body.replaceChildren();
    for (const f of shown.slice(files.page * FILE_PAGE, (files.page + 1) * FILE_PAGE)) {
      const tr = el("tr", null, "row");
      tr.tabIndex = 0;
      const index = fileIndex.get(f[0]);
      if (state.file === index) tr.classList.add("open");
      tr.append(el("td", f[0], "path"), el("td", f[1], "num"), el("td", f[2], "num"), el("td", f[3], "num"), el("td", f[4], "num"));
      const pick = () => {
        state.file = state.file === index ? null : index;
        state.page = 0;
        renderFiles();
        renderFindings();
      };
      tr.addEventListener("click", pick);
      tr.addEventListener("keydown", (event) => {
        if (event.key === "Enter") pick();
      });
      body.append(tr);
    }
    if (!shown.length) {
      const tr = el("tr");
      const td = el("td", "No file with findings.", "empty");
      td.colSpan = 5;
      tr.append(td);
      body.append(tr);
    }
    document.getElementById("file-count").textContent = `${count(shown.length, "file")} with findings`;
    pager(document.getElementById("files-pager"), files.page, pages, shown.length, "file", (page) => {
      files.page = page;
      renderFiles();
    });
    marks("#files", String(files.key), files.down);
  }

  function marks(table, key, down) {
    for (const th of document.querySelectorAll(table + " th")) {
      th.setAttribute("aria-sort", th.dataset.key === key ? (down ? "descending" : "ascending") : "none");
    }
  }

  for (const th of document.querySelectorAll("#findings th")) {
    th.addEventListener("click", () => {
      state.down = state.key === th.dataset.key ? !state.down : false;
      state.key = th.dataset.key;
      renderFindings();
    });
  }
  for (const th of document.querySelectorAll("#files th")) {
    th.addEventListener("click", () => {
      const key = Number(th.dataset.key);
      files.down = files.key === key ? !files.down : key > 0;
      files.key = key;
      renderFiles();
    });
  }
  const rules = document.getElementById("rule-filter");
  for (const code of [...new Set(rows.map((r) => r[3]))].sort()) {
    rules.append(el("option", `${code} ${data.rules[code] || ""}`.trim()));
    rules.lastChild.value = code;
  }
  const on = (id, event, apply) => document.getElementById(id).addEventListener(event, (e) => {
    apply(e.target.value);
    state.page = 0;
    renderFindings();
  });
  on("filter", "input", (value) => (state.query = value));
  on("rule-filter", "change", (value) => (state.rule = value));
  on("fix-filter", "change", (value) => (state.fix = value));
  document.getElementById("file-filter").addEventListener("input", (e) => {
    files.query = e.target.value;
    files.page = 0;
    renderFiles();
  });

  // #finding=N opens the N-th finding (input order) on its page: a link to one finding.
  const asked = /^#finding=(\d+)$/.exec(location.hash);
  if (asked && Number(asked[1]) < rows.length) {
    const index = Number(asked[1]);
    state.open.add(index);
    state.page = Math.floor(matching().indexOf(index) / PAGE);
  }
  renderFiles();
  renderFindings();
  document.documentElement.dataset.ready = "true";
})();
