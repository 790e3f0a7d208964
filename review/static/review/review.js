/* amem review: queue keys, selection, the live "N left" counter, the bulk preview dialog, cards drawn
   again when another decision changed one of their notes. Our own code, no library; htmx does every request. */
(function () {
  "use strict";
  let current = null;
  let lastUndo = null;

  const queue = () => document.getElementById("queue");
  const cards = () => Array.from(document.querySelectorAll("#queue .card[data-key]"));
  const live = () => cards().filter((c) => !c.classList.contains("done"));
  const picks = () => live().map((c) => c.querySelector(".pick-card")).filter(Boolean);
  const bar = () => document.getElementById("queue-bar");

  // The sticky bar's height, so a card scrolled into view is never hidden under it (scroll-margin-top).
  function measureBar() {
    const b = bar();
    if (b) document.documentElement.style.setProperty("--bar-h", `${b.offsetHeight}px`);
  }

  function refresh() {
    if (!queue()) return;
    const counter = document.getElementById("left");
    const total = counter ? Number(counter.dataset.total || 0) : 0;
    const decided = cards().filter((c) => c.classList.contains("done")).length;
    const left = Math.max(0, total - decided);
    if (counter) counter.textContent = String(left);
    const onPage = live().length;
    const empty = document.getElementById("queue-empty");
    if (empty) empty.hidden = left > 0;
    const pageDone = document.getElementById("page-done");
    if (pageDone) {
      pageDone.hidden = !(left > 0 && onPage === 0);
      const more = document.getElementById("more");
      if (more) more.textContent = String(left);
    }
    const chosen = picks().filter((p) => p.checked).length;
    const selected = document.getElementById("selected");
    if (selected) selected.textContent = String(chosen);
    const form = document.getElementById("bulk-form");
    if (form) form.toggleAttribute("data-empty", chosen === 0);
    document.querySelectorAll("#bulk-form button[data-bulk]").forEach((b) => {
      if (!b.closest(".htmx-request")) b.disabled = chosen === 0;
    });
    const all = document.getElementById("select-all");
    if (all) all.checked = chosen > 0 && chosen === picks().length;
    cards().forEach((c) => c.classList.toggle("picked", !!(c.querySelector(".pick-card") || {}).checked));
    countChips();
    markClamped();
    if (current && !document.body.contains(current)) current = null;
    measureBar();
  }

  // "Select on this page" buttons count the cards left that they select; one with none left goes.
  function countChips() {
    const row = document.getElementById("selectors");
    if (!row) return;
    const chips = Array.from(row.querySelectorAll(".chip"));
    chips.forEach((chip) => {
      const n = matching(chip.dataset.select, chip.dataset.reason || chip.dataset.agent).length;
      const label = chip.querySelector(".n");
      if (label) label.textContent = String(n);
      chip.hidden = n === 0;
    });
    row.hidden = chips.every((c) => c.hidden);
  }

  // On a phone a pair card's texts stop at eight lines (review.css): offer the rest where they did.
  function markClamped() {
    live().forEach((c) => {
      const cut = Array.from(c.querySelectorAll(".side .text")).some((t) => t.scrollHeight > t.clientHeight + 2);
      c.classList.toggle("clamped", cut && !c.classList.contains("whole"));
    });
  }

  function matching(kind, value) {
    const boxes = picks();
    if (kind === "reason") return boxes.filter((p) => (p.closest(".card").dataset.reasons || "").split("|").includes(value));
    if (kind === "agent") return boxes.filter((p) => p.closest(".card").dataset.agent === value);
    return boxes;
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
    const chosen = matching(kind, value);
    const on = !chosen.every((p) => p.checked);
    chosen.forEach((p) => { p.checked = on; });
    refresh();
  }

  function help() {
    const dialog = document.getElementById("help");
    if (!dialog) return;
    if (dialog.open) dialog.close(); else dialog.showModal();
  }

  // A decision key acts on the current card only (selected cards go through the bar and its preview).
  function act(key) {
    if (current && !document.body.contains(current)) current = null;
    if (!current || current.classList.contains("done")) move(1);
    const button = current && current.querySelector(`.buttons button[data-key="${key}"]`);
    if (button && !button.disabled) { button.click(); return true; }
    return false;
  }

  function inField(t) {
    return t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)) && t.type !== "checkbox";
  }

  document.addEventListener("keydown", (e) => {
    const t = e.target;
    if (inField(t)) {
      const card = t.closest && t.closest("#queue .card");
      if (card && e.key === "Escape") { t.blur(); setCurrent(card); e.preventDefault(); return; }
      if (card && e.key === "Enter" && (e.ctrlKey || e.metaKey) && t.matches("[data-preview]")) {
        const same = card.querySelector('.buttons button[data-decision="same"]');
        if (same) { setCurrent(card); same.click(); e.preventDefault(); }
      }
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
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
    else if (/^[A-Z]$/.test(e.key)) {
      // Shift + a decision's key: that decision for the selected cards, through the preview.
      const bulk = document.querySelector(`#bulk-form button[data-bulk][data-key="${e.key}"]`);
      if (bulk && !bulk.disabled) bulk.click(); else done = false;
    }
    else done = false;
    if (done) e.preventDefault();
  });

  document.addEventListener("click", (e) => {
    const whole = e.target.closest("[data-whole]");
    if (whole) { const c = whole.closest(".card"); c.classList.add("whole"); c.classList.remove("clamped"); return; }
    const close = e.target.closest("#bulk-dialog [data-close]");
    if (close) { e.preventDefault(); closePreview(); return; }
    const t = e.target.closest("[data-select], [data-help]");
    if (!t) return;
    if (t.dataset.help !== undefined) { help(); return; }
    if (t.id === "select-all") { picks().forEach((p) => { p.checked = t.checked; }); refresh(); return; }
    select(t.dataset.select, t.dataset.reason || t.dataset.agent);
  });
  document.addEventListener("change", (e) => { if (e.target.classList && e.target.classList.contains("pick-card")) refresh(); });

  // The bulk preview: the server's list of what each selected card will get opens in a dialog;
  // its confirm button runs the action (the dialog closes when the result is in).
  function closePreview() {
    const dialog = document.getElementById("bulk-dialog");
    if (dialog && dialog.open) dialog.close();
    const body = document.getElementById("bulk-preview");
    if (body) body.innerHTML = "";
  }

  document.addEventListener("htmx:afterRequest", (e) => {
    if (e.detail.elt && e.detail.elt.id === "bulk-run" && e.detail.successful) {
      closePreview();
      picks().forEach((p) => { p.checked = false; });
      refresh();
    }
  });

  // Plain forms that change something a click cannot take back unseen ask first (data-confirm).
  document.addEventListener("submit", (e) => {
    const ask = e.target.dataset && e.target.dataset.confirm;
    if (ask && !window.confirm(ask)) e.preventDefault();
  });

  // A page brought back by Back/Forward from the browser's memory may show cards decided since:
  // load it again. (Review pages are sent with Cache-Control: no-store, so most browsers reload anyway.)
  window.addEventListener("pageshow", (e) => { if (e.persisted) window.location.reload(); });

  // Another open card that shows one of the notes a decision just changed is drawn again, so its
  // texts (and the merged text it would write) are what is stored now.
  function redrawSiblings(doneCard, notes) {
    const base = queue() && queue().dataset.cardUrl;
    if (!base || !window.htmx || !notes.length) return;
    live().forEach((c) => {
      if (c === doneCard || !(c.dataset.notes || "").split(" ").some((n) => notes.includes(n))) return;
      const kind = c.id.slice(0, c.id.indexOf("-"));
      htmx.ajax("GET", `${base}${kind}/${c.dataset.key}/?redrawn=1`, { target: `#${c.id}`, swap: "outerHTML" });
    });
  }

  let notesBefore = {};
  document.addEventListener("htmx:beforeSwap", (e) => {
    const t = e.detail.target;
    if (t && t.classList && t.classList.contains("card")) notesBefore[t.id] = (t.dataset.notes || "").split(" ").filter(Boolean);
  });

  document.addEventListener("htmx:afterSwap", (e) => {
    const target = e.detail.target;
    if (target && target.id === "bulk-preview") {
      const dialog = document.getElementById("bulk-dialog");
      if (dialog && !dialog.open) dialog.showModal();
      const confirm = dialog && dialog.querySelector("button[autofocus]");
      if (confirm) confirm.focus();
      return;
    }
    const fresh = target && target.id ? document.getElementById(target.id) : null;
    const undo = fresh && fresh.querySelector("[data-undo]");
    if (undo) lastUndo = undo;
    const elt = e.detail.requestConfig && e.detail.requestConfig.elt;
    const fromUndo = !!(elt && elt.closest && (elt.closest(".card.done") || elt.matches("[data-undo]")));
    const wasCurrent = current && (target === current || !document.body.contains(current));
    refresh();
    if (!fresh || !fresh.classList.contains("card")) return;
    if (!fresh.classList.contains("done")) {
      // Undone, or drawn again after a stale decision: that card is the one to look at.
      if (fromUndo || wasCurrent) setCurrent(fresh);
      return;
    }
    redrawSiblings(fresh, notesBefore[fresh.id] || []);
    if (!wasCurrent) return;
    // The card turned into a done card: go on with the next card left.
    const list = live();
    const after = list.find((c) => fresh.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING);
    if (after || list.length) setCurrent(after || list[list.length - 1]);
    else { current = null; const empty = document.querySelector("#queue-empty:not([hidden]), #page-done:not([hidden])"); if (empty) { empty.tabIndex = -1; empty.focus(); } }
  });

  // A page change in the browser starts at the top of the list.
  document.addEventListener("htmx:afterSwap", (e) => {
    if (e.detail.target && e.detail.target.id === "results") window.scrollTo({ top: 0 });
  });
  document.addEventListener("htmx:afterSettle", refresh);
  window.addEventListener("resize", measureBar);

  document.addEventListener("DOMContentLoaded", refresh);
})();
