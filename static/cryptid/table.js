// Cryptid's table: check a hex on a seat's map and follow the table's hint panel; the pages work without it.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const map = document.querySelector(".seat-map");
  if (map) hexKeyboard(map, hexChecker(map, document.getElementById("check")));
});

// Check a hex without reloading: the answer comes from the map the server drew for this seat. Returns the
// check itself, for the keyboard.
function hexChecker(map, answer) {
  const ring = map.querySelector("circle.selected");
  map.addEventListener("click", (event) => {
    const link = event.target.closest("a");
    if (!link) return;
    event.preventDefault();
    check(link);
  });
  function check(link) {
    const hex = link.firstChild;
    const allowed = !hex.getAttribute("href").startsWith("#x");
    answer.className = "answer " + (allowed ? "disc" : "cube");
    // The same translated label the server uses: "{name}: {terrain}", the name ("E5") Latin in every language.
    const [col, row, terrain] = link.getAttribute("aria-labelledby").split(" ").map((id) => document.getElementById(id).textContent);
    const name = document.createElement("strong");
    name.textContent = answer.dataset.hexName.replace("{name}", col + row).replace("{terrain}", terrain);
    answer.replaceChildren(name, " ", allowed ? answer.dataset.disc : answer.dataset.cube);
    ring.setAttribute("cx", hex.getAttribute("x"));
    ring.setAttribute("cy", hex.getAttribute("y"));
    history.replaceState(null, "", link.getAttribute("href"));
  }
  return check;
}

// The seat map is one Tab stop (a roving tabindex). Arrow keys move by rows and columns, as the hexes' names
// count them (the board never mirrors, so left is left in every language); Home and End go to the ends of
// the row; Enter (the link's own) or Space checks the hex. The focus ring follows the keyboard, not taps.
const MAP_COLUMNS = 12;

function hexKeyboard(map, check) {
  const links = [...map.querySelectorAll("a")];
  const ring = map.querySelector(".focus-ring");
  let current = links[new URLSearchParams(location.search).get("hex")] || links[0];
  for (const link of links) link.tabIndex = link === current ? 0 : -1;
  // Focus listeners go on the map's holder: on the <svg> itself they would make Chromium focus it.
  const holder = map.parentElement;
  holder.addEventListener("focusin", (event) => {
    current.tabIndex = -1;
    current = event.target;
    current.tabIndex = 0;
    const hex = current.firstChild;
    ring.setAttribute("transform", `translate(${hex.getAttribute("x")} ${hex.getAttribute("y")})`);
    ring.classList.toggle("on", current.matches(":focus-visible"));
  });
  holder.addEventListener("focusout", () => ring.classList.remove("on"));
  map.addEventListener("keydown", (event) => {
    const index = links.indexOf(event.target);
    const col = index % MAP_COLUMNS;
    const step = {
      ArrowLeft: col > 0 ? -1 : 0,
      ArrowRight: col < MAP_COLUMNS - 1 ? 1 : 0,
      ArrowUp: -MAP_COLUMNS,
      ArrowDown: MAP_COLUMNS,
      Home: -col,
      End: MAP_COLUMNS - 1 - col,
    }[event.key];
    if (event.key === " ") {
      event.preventDefault();
      check(links[index]);
      return;
    }
    if (step === undefined || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    links[index + step]?.focus();
  });
}

// The banner at the top of the page: a fresh panel that brings an unlock the page has not announced yet
// shows it there, kept on screen until tapped.
function announceUnlock(panel) {
  const next = panel.querySelector("#news-next");
  const news = document.getElementById("news");
  if (!next || !news) return;
  const banner = next.content.firstElementChild;
  if (news.firstElementChild?.dataset.step === banner.dataset.step) return;
  news.replaceChildren(document.importNode(banner, true));
  news.classList.add("live");
}

// The table panel: follow its changes while the page is visible, and send its forms without a reload.
// A box table's page long-polls the panel (?wait=1): the server answers as soon as the table changes, or with
// 304 after about 25 s. A refereed page already holds one long poll for its live part (play.js); there the panel
// is polled every few seconds instead, so that a phone holds one waiting request, not two, and the moves that
// wake the live part do not wake the panel's request too.
const POLL_MS = 3000;

function swapPanel(html, etag) {
  const holder = document.createElement("template");
  holder.innerHTML = html.trim();
  const fresh = holder.content.querySelector("#table");
  const panel = document.getElementById("table");
  if (!fresh || !panel) return;
  if (etag) fresh.dataset.etag = etag.replace(/^W\//, "").replace(/"/g, "");
  // The same version twice (a vote's own answer, after the long poll brought it) would only undo what the
  // person did since.
  if (fresh.dataset.etag === panel.dataset.etag) return;
  const refocus = carryOver(panel, fresh);
  panel.replaceWith(fresh);
  refocus();
  announceUnlock(fresh);
}

// Any phone's vote redraws the panel; what was under the person's thumb stays: a ticked box stays ticked
// (keepFields, app.js), and the focus stays on the same control (found by its id, or its place in the nearest
// element that has one).
function carryOver(panel, fresh) {
  keepFields(panel, fresh);
  const focused = panel.contains(document.activeElement) ? document.activeElement : null;
  const named = focused?.closest("[id]");
  if (!named || named === panel) return () => {};
  const place = [...named.querySelectorAll("*")].indexOf(focused);
  return () => {
    const twin = document.getElementById(named.id);
    (place < 0 ? twin : twin?.querySelectorAll("*")[place])?.focus();
  };
}

const pause = (ms) => new Promise((resume) => setTimeout(resume, ms));

// One request at a time; after a refusal or no answer, ask again later and later (retryDelay, app.js). A hidden
// page asks nothing; shown again, it asks at once.
async function followPanel() {
  const holds = !document.getElementById("play");
  for (let refusals = 0; ; ) {
    while (document.hidden) await new Promise((shown) => document.addEventListener("visibilitychange", shown, { once: true }));
    const panel = document.getElementById("table");
    if (!panel) return;
    const shown = panel.dataset.etag;
    let wait = holds ? 0 : POLL_MS;
    try {
      const response = await fetch(panel.dataset.poll + (holds ? "?wait=1" : ""), { cache: "no-store", headers: { "If-None-Match": `"${shown}"` } });
      const text = response.status === 200 ? await response.text() : "";
      if (text) await released();  // not under a finger (app.js)
      // The phone's own vote may have swapped in a newer panel while this request waited: its answer is no
      // newer than that one, so it is dropped and the next request asks from the panel shown now.
      if (text && document.getElementById("table")?.dataset.etag === shown) swapPanel(text, response.headers.get("ETag"));
      if (response.status === 200 || response.status === 304) refusals = 0;
      else wait = retryDelay(response, ++refusals);
    } catch (error) {
      wait = retryDelay(null, ++refusals);
    }
    await pause(wait);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  if (!document.getElementById("table")) return;
  followPanel();
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
      const text = await response.text();
      await released();
      swapPanel(text, response.headers.get("ETag"));
    } catch (error) {
      // Let the server's own page explain what went wrong. A newer panel may have replaced the form meanwhile;
      // a form outside the page is never sent, so it goes back in, out of sight, to be sent the ordinary way.
      if (!form.isConnected) {
        form.hidden = true;
        document.body.append(form);
      }
      form.submit();
    }
  });
});
