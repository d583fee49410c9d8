// Small progressive enhancements; every page works without this file.
"use strict";

document.documentElement.classList.add("js");

document.addEventListener("DOMContentLoaded", () => {
  for (const select of document.querySelectorAll("select[data-autosubmit]")) {
    select.addEventListener("change", () => select.form.submit());
  }

  for (const button of document.querySelectorAll("[data-print]")) {
    button.addEventListener("click", () => window.print());
  }

  // Check a hex without reloading: the answer comes from the map the server drew for this seat.
  const answer = document.getElementById("check");
  const map = document.querySelector(".seat-map");
  if (answer && map) {
    map.addEventListener("click", (event) => {
      const link = event.target.closest("a[href^='?hex=']");
      if (!link) return;
      event.preventDefault();
      const allowed = !link.querySelector("use").getAttribute("href").startsWith("#x");
      answer.classList.toggle("disc", allowed);
      answer.classList.toggle("cube", !allowed);
      const name = document.createElement("strong");
      // The same translated sentence the server uses: "Row {row}, column {col}: {terrain}".
      const [row, col, terrain] = link.getAttribute("aria-labelledby").split(" ");
      name.textContent = answer.dataset.hexName
        .replace("{row}", row.slice(1))
        .replace("{col}", col.slice(1))
        .replace("{terrain}", document.getElementById(terrain).textContent) + ". ";
      const text = document.createElement("span");
      text.textContent = allowed ? answer.dataset.disc : answer.dataset.cube;
      answer.replaceChildren(name, text);
      let ring = map.querySelector("circle.selected");
      if (!ring) {
        ring = document.createElementNS("http://www.w3.org/2000/svg", "circle");
        ring.setAttribute("class", "selected");
        ring.setAttribute("r", "7.4");
        map.append(ring);
      }
      const hex = link.querySelector("use");
      ring.setAttribute("cx", hex.getAttribute("x"));
      ring.setAttribute("cy", hex.getAttribute("y"));
      history.replaceState(null, "", link.getAttribute("href"));
    });
  }
});

// The table panel: poll for changes while the page is visible, and send its forms without a reload.
const POLL_MS = 3000;

function swapPanel(html, etag) {
  const holder = document.createElement("template");
  holder.innerHTML = html.trim();
  const fresh = holder.content.querySelector("#table");
  const panel = document.getElementById("table");
  if (!fresh || !panel) return;
  if (etag) fresh.dataset.etag = etag.replace(/^W\//, "").replace(/"/g, "");
  panel.replaceWith(fresh);
}

async function pollPanel() {
  const panel = document.getElementById("table");
  if (!panel || document.visibilityState !== "visible") return;
  try {
    const response = await fetch(panel.dataset.poll, {
      cache: "no-store",
      headers: { "If-None-Match": `"${panel.dataset.etag}"` },
    });
    if (response.status === 200) swapPanel(await response.text(), response.headers.get("ETag"));
  } catch (error) {
    // Offline for a moment: the next poll tries again.
  }
}

document.addEventListener("DOMContentLoaded", () => {
  if (!document.getElementById("table")) return;
  setInterval(pollPanel, POLL_MS);
  document.addEventListener("visibilitychange", pollPanel);
  document.addEventListener("submit", async (event) => {
    const form = event.target;
    if (!form.matches("#table form[data-live]")) return;
    event.preventDefault();
    try {
      const response = await fetch(form.action, {
        method: "POST",
        body: new FormData(form),
        headers: { "X-Requested-With": "fetch" },
      });
      if (!response.ok) throw new Error(String(response.status));
      swapPanel(await response.text(), response.headers.get("ETag"));
    } catch (error) {
      // Let the server's own page explain what went wrong.
      form.submit();
    }
  });
});

// Refereed play: the live fragment (#play) long-polls its own URL; the server answers when the game moved on.
// Taps on hexes and move buttons fetch the next fragment instead of reloading; forms inside it post by fetch.
function swapPlay(html) {
  const holder = document.createElement("template");
  holder.innerHTML = html.trim();
  const fresh = holder.content.querySelector("#play");
  const current = document.getElementById("play");
  if (!fresh || !current) return;
  const wasMyTurn = current.hasAttribute("data-your-turn");
  // Whatever the player is typing survives an update that arrives meanwhile.
  const focused = document.activeElement && document.activeElement.id;
  for (const field of current.querySelectorAll("input[id]:not([type=hidden])")) {
    const twin = fresh.querySelector(`#${CSS.escape(field.id)}`);
    if (!twin || twin.type !== field.type) continue;
    if (field.type === "checkbox") twin.checked = field.checked;
    else if (!twin.value) twin.value = field.value;
  }
  current.replaceWith(fresh);
  if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
  const myTurn = fresh.hasAttribute("data-your-turn");
  document.title = (myTurn ? "● " : "") + document.title.replace(/^● /, "");
  if (myTurn && !wasMyTurn) {
    if (navigator.vibrate) navigator.vibrate(200);
    const banner = fresh.querySelector(".turn-banner");
    if (banner) banner.scrollIntoView({ block: "nearest" });
  }
}

async function followPlay() {
  // One waiting request at a time; on errors (offline, asleep) wait a little and ask again with the version.
  for (;;) {
    const play = document.getElementById("play");
    if (!play) return;
    const asked = play.dataset.live;
    try {
      const response = await fetch(asked, {
        cache: "no-store",
        headers: { "If-None-Match": `"${play.dataset.etag}"` },
      });
      // A tap moved the page to another step while this request waited: its answer would undo the tap.
      const moved = document.getElementById("play")?.dataset.live !== asked;
      if (response.status === 200 && !moved) swapPlay(await response.text());
      else if (response.status !== 304) await new Promise((r) => setTimeout(r, 3000));
    } catch (error) {
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
}

async function loadPlay(url, push) {
  const play = document.getElementById("play");
  const target = new URL(url, location.href);
  const live = new URL(play.dataset.live, location.href);
  live.search = target.search;
  const response = await fetch(live, { cache: "no-store" });
  if (!response.ok) { location.href = url; return; }
  swapPlay(await response.text());
  if (push) history.replaceState(null, "", target);
}

document.addEventListener("DOMContentLoaded", () => {
  if (!document.getElementById("play")) return;
  followPlay();
  document.addEventListener("click", (event) => {
    const link = event.target.closest("#play a[data-frag], #play svg a");
    if (!link) return;
    event.preventDefault();
    loadPlay(link.getAttribute("href"), true);
  });
  document.addEventListener("submit", async (event) => {
    const form = event.target;
    if (!form.matches("#play form[data-live]")) return;
    event.preventDefault();
    // getAttribute: the forms have a field named "action", which hides the form's own action property.
    const response = await fetch(form.getAttribute("action"), {
      method: "POST", body: new FormData(form), headers: { "X-Requested-With": "fetch" },
    });
    if (response.ok) {
      swapPlay(await response.text());
      history.replaceState(null, "", location.pathname);
    } else {
      // The server's page says why (not your turn, the game moved on): show it in place of the choices.
      const act = document.getElementById("act");
      const text = (await response.text()).match(/role="alert">([^<]*)</);
      if (act && text) {
        const note = document.createElement("p");
        note.className = "error";
        note.setAttribute("role", "alert");
        note.textContent = text[1];
        act.append(note);
      }
    }
  });
});

