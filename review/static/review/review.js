/* amem review: queue keyboard shortcuts, selection, live "N left" counter, scroll to top.
   Our own code, no library; htmx does every request. */
(function () {
  "use strict";
  let current = null;
  let lastUndo = null;

  const queue = () => document.getElementById("queue");
  const cards = () => Array.from(document.querySelectorAll("#queue .card[data-key]"));
  const live = () => cards().filter((c) => !c.classList.contains("done"));
  const picks = () => live().map((c) => c.querySelector(".pick-card")).filter(Boolean);

  function refresh() {
    if (!queue()) return;
    const left = live().length;
    const counter = document.getElementById("left");
    if (counter) counter.textContent = String(left);
    const empty = document.getElementById("queue-empty");
    if (empty) empty.hidden = left > 0;
    const chosen = picks().filter((p) => p.checked).length;
    const selected = document.getElementById("selected");
    if (selected) selected.textContent = String(chosen);
    document.querySelectorAll("#bulk-form button[data-bulk]").forEach((b) => {
      if (!b.closest(".htmx-request")) b.disabled = chosen === 0;
    });
    const all = document.getElementById("select-all");
    if (all) all.checked = chosen > 0 && chosen === picks().length;
    cards().forEach((c) => c.classList.toggle("picked", !!(c.querySelector(".pick-card") || {}).checked));
    if (current && !document.body.contains(current)) current = null;
  }

  function setCurrent(card) {
    if (!card) return;
    cards().forEach((c) => c.classList.toggle("current", c === card));
    current = card;
    card.focus({ preventScroll: true });
    card.scrollIntoView({ block: "nearest" });
  }

  function move(step) {
    const list = live();
    if (!list.length) return;
    const at = current ? list.indexOf(current) : -1;
    let next = at === -1 ? (step > 0 ? 0 : list.length - 1) : at + step;
    next = Math.max(0, Math.min(list.length - 1, next));
    setCurrent(list[next]);
  }

  function select(kind, value) {
    const boxes = picks();
    let chosen = boxes;
    if (kind === "reason") chosen = boxes.filter((p) => (p.closest(".card").dataset.reasons || "").split("|").includes(value));
    if (kind === "agent") chosen = boxes.filter((p) => p.closest(".card").dataset.agent === value);
    const on = !chosen.every((p) => p.checked);
    chosen.forEach((p) => { p.checked = on; });
    refresh();
  }

  function help() {
    const dialog = document.getElementById("help");
    if (!dialog) return;
    if (dialog.open) dialog.close(); else dialog.showModal();
  }

  function act(key) {
    const chosen = picks().filter((p) => p.checked).length;
    const bulkButton = document.querySelector(`#bulk-form button[data-key="${key}"]`);
    if (chosen && bulkButton) { bulkButton.click(); return true; }
    if (current && !document.body.contains(current)) current = null;
    if (!current || current.classList.contains("done")) move(1);
    const button = current && current.querySelector(`button[data-key="${key}"]`);
    if (button && !button.disabled) { button.click(); return true; }
    return false;
  }

  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)) && t.type !== "checkbox") return;
    if (e.key === "?") { help(); e.preventDefault(); return; }
    if (!queue() || document.querySelector("dialog[open]")) return;
    let done = true;
    if (e.key === "j") move(1);
    else if (e.key === "k") move(-1);
    else if (e.key === "x") {
      if (!current) move(1);
      const box = current && current.querySelector(".pick-card");
      if (box) { box.checked = !box.checked; refresh(); }
    } else if (e.key === "*") select("all");
    else if (e.key === "u") {
      const undo = lastUndo && document.body.contains(lastUndo) ? lastUndo : Array.from(document.querySelectorAll("[data-undo]")).pop();
      // A card swapped in a moment ago may not be wired by htmx yet: wire it first, so the
      // click is an htmx request and not a plain form post that leaves the queue.
      if (undo && window.htmx) htmx.process(undo.closest("form") || undo);
      if (undo) undo.click(); else done = false;
    } else if (/^[a-z]$/.test(e.key)) done = act(e.key);
    else done = false;
    if (done) e.preventDefault();
  });

  document.addEventListener("click", (e) => {
    const t = e.target.closest("[data-select], [data-help]");
    if (!t) return;
    if (t.dataset.help !== undefined) { help(); return; }
    if (t.id === "select-all") { picks().forEach((p) => { p.checked = t.checked; }); refresh(); return; }
    select(t.dataset.select, t.dataset.reason || t.dataset.agent);
  });
  document.addEventListener("change", (e) => { if (e.target.classList && e.target.classList.contains("pick-card")) refresh(); });

  // Bulk actions ask first, with the count.
  let bulkButton = null;
  document.addEventListener("click", (e) => {
    const b = e.target.closest && e.target.closest("#bulk-form button[data-bulk]");
    if (b) bulkButton = b;
  }, true);
  document.addEventListener("htmx:confirm", (e) => {
    if (e.detail.elt.id !== "bulk-form") return;
    e.preventDefault();
    const chosen = picks().filter((p) => p.checked).length;
    const label = (bulkButton && bulkButton.dataset.bulk) || "Apply to";
    const noun = e.detail.elt.dataset.noun || "note";
    if (chosen && window.confirm(`${label} ${chosen} ${noun}${chosen === 1 ? "" : "s"}?`)) e.detail.issueRequest(true);
  });

  // Plain forms that change something a click cannot take back unseen ask first (data-confirm).
  document.addEventListener("submit", (e) => {
    const ask = e.target.dataset && e.target.dataset.confirm;
    if (ask && !window.confirm(ask)) e.preventDefault();
  });

  // A page brought back by Back/Forward from the browser's memory may show cards decided since:
  // load it again. (Review pages are sent with Cache-Control: no-store, so most browsers reload anyway.)
  window.addEventListener("pageshow", (e) => { if (e.persisted) window.location.reload(); });

  document.addEventListener("htmx:afterSwap", (e) => {
    const target = e.detail.target;
    const fresh = target && target.id ? document.getElementById(target.id) : null;
    const acted = current && (target === current || !document.body.contains(current));
    const undo = fresh && fresh.querySelector("[data-undo]");
    if (undo) lastUndo = undo;
    refresh();
    if (!acted) return;
    if (fresh && fresh.dataset.key && !fresh.classList.contains("done")) { setCurrent(fresh); return; }
    // The card turned into a done card: go on with the next card left.
    const list = live();
    const anchor = fresh && fresh.dataset.key ? fresh : null;
    const after = anchor ? list.find((c) => anchor.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING) : list[0];
    if (after || list.length) setCurrent(after || list[list.length - 1]);
    else { current = null; const empty = document.getElementById("queue-empty"); if (empty) { empty.tabIndex = -1; empty.focus(); } }
  });

  // A page change in the browser starts at the top of the list.
  document.addEventListener("htmx:afterSwap", (e) => {
    if (e.detail.target && e.detail.target.id === "results") window.scrollTo({ top: 0 });
  });
  document.addEventListener("htmx:afterSettle", refresh);

  document.addEventListener("DOMContentLoaded", refresh);
})();
