// Refereed play: live updates and moves without reloads; the pages work without this file.
"use strict";

// The live fragment (#play) long-polls its own URL; the server answers when the game moved on, and the fragment
// is swapped in place. Taps on hexes fetch the fragment with that hex's sheet; forms inside it post by fetch.
// Nothing here decides a rule: the server's fragment says what may be done, this file only moves it in.

// A fragment that names its table's version (data-version, the moves so far) is never swapped in over a newer one.
const olderThan = (fresh, current) => Number(fresh.dataset.version) < Number(current.dataset.version);

// `live`: the answer of a long poll sent before the page last changed. It may come after the answer of the
// player's own move (which it cannot know of), so it is dropped when it shows that version or an older one:
// swapping it in would undo the move on screen, or replace the buttons under a finger (a tap lost between
// press and release).
// Returns whether the fragment was swapped in.
function swapPlay(html, tapped = false, live = false) {
  const holder = document.createElement("template");
  holder.innerHTML = html.trim();
  const fresh = holder.content.querySelector("#play");
  const current = document.getElementById("play");
  if (!fresh || !current || olderThan(fresh, current)) return false;
  if (live && fresh.dataset.etag === current.dataset.etag) return false;
  const wasMyTurn = current.hasAttribute("data-your-turn");
  const moved = Number(fresh.dataset.log || 0) > Number(current.dataset.log || 0);
  // Whatever the player is typing or has opened survives an update that arrives meanwhile.
  const focused = document.activeElement && document.activeElement.id;
  keepFields(current, fresh);
  for (const box of current.querySelectorAll("details[open]")) {
    const twin = box.className && fresh.querySelector(`details.${CSS.escape(box.className.split(" ")[0])}`);
    if (twin) twin.open = true;
  }
  current.replaceWith(fresh);
  if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
  const myTurn = fresh.hasAttribute("data-your-turn");
  document.title = (myTurn ? "● " : "") + document.title.replace(/^● /, "");
  if (myTurn && !wasMyTurn && navigator.vibrate) navigator.vibrate(200);
  // A game's own script may add to this (announce the move, keep a selection in view).
  document.dispatchEvent(new CustomEvent("play:swapped", { detail: { play: fresh, moved, tapped } }));
  return true;
}

function showOnline(online) {
  const sign = document.getElementById("offline");
  if (sign) sign.hidden = online;
}

async function followPlay() {
  // One waiting request at a time; on errors (offline, asleep) say so, wait a little and ask again.
  let refusals = 0; // in a row: each one makes the next wait longer (retryDelay)
  for (;;) {
    const play = document.getElementById("play");
    if (!play) return;
    try {
      const asked = play.dataset.live;
      const response = await fetch(asked, {
        cache: "no-store",
        headers: { "If-None-Match": `"${play.dataset.etag}"` },
      });
      const text = response.status === 200 ? await response.text() : "";
      showOnline(response.status < 500);
      if (text) await released();  // not under a finger (app.js)
      // A tap moved the page to another step while this request waited (or while its answer was read): that
      // answer would undo the tap, so drop it; the next request asks again from the new step.
      const moved = document.getElementById("play")?.dataset.live !== asked;
      if (response.status === 200 || response.status === 304) refusals = 0;
      if (response.status === 200 && !moved) swapPlay(text, false, true);
      // Busy (429) or its database away (503): ask again when the server says, later after each refusal in a row.
      else if (response.status !== 304 && !moved) await new Promise((r) => setTimeout(r, retryDelay(response, ++refusals)));
    } catch (error) {
      showOnline(false);
      await new Promise((r) => setTimeout(r, retryDelay(null, ++refusals)));
    }
  }
}

// Taps so far: only the latest tap's answer is swapped in. Two quick taps (Cancel, then another hex) send two
// requests whose answers may come back in either order; the earlier tap's, arriving last, would close the sheet
// the player has just opened.
let taps = 0;
// A live update may come in while a tap's answer is on its way, showing the table one move on: the tap's answer,
// drawn before that move, is then older than the page and is not swapped in (it would turn the table back), so
// the tapped step is asked for again, for the table as it is now. A few times at most, for a table that moves
// faster than the phone can ask.
const TAP_ASKS = 4;
async function loadPlay(url) {
  const tap = ++taps;
  const target = new URL(url, location.href);
  for (let asks = 0; asks < TAP_ASKS; asks++) {
    const live = new URL(document.getElementById("play").dataset.live, location.href);
    live.search = target.search;
    const response = await fetch(live, { cache: "no-store" }).catch(() => null);
    if (tap !== taps) return;
    if (!response || !response.ok) { location.href = url; return; }
    const text = await response.text();
    if (tap !== taps) return;
    if (swapPlay(text, true)) break;
  }
  history.replaceState(null, "", target.pathname + target.search);
}

async function sendMove(form, submitter) {
  // Confirm is pressed once: the form's buttons stay disabled until its answer is in, so a double tap makes one move.
  if (form.dataset.sending) return;
  form.dataset.sending = "1";
  // The pressed button's name and value belong to the form's data ("Join White" sends team=white), as in a
  // plain post; FormData(form) alone leaves them out.
  const body = new FormData(form);
  if (submitter && submitter.name) body.append(submitter.name, submitter.value);
  for (const button of form.querySelectorAll("button")) button.disabled = true;
  try {
    // getAttribute: the forms have a field named "action", which hides the form's own action property.
    const response = await fetch(form.getAttribute("action"), {
      method: "POST", body, headers: { "X-Requested-With": "fetch" },
    });
    if (response.ok) {
      const text = await response.text();
      await released();
      swapPlay(text);
      history.replaceState(null, "", location.pathname);
      return;
    }
    // The server's page says why (not your turn, the game moved on): show it in the form.
    const text = (await response.text()).match(/role="alert">([^<]*)</);
    if (text) {
      const note = document.createElement("p");
      note.className = "error";
      note.setAttribute("role", "alert");
      note.textContent = text[1];
      form.append(note);
    }
  } catch (error) {
    showOnline(false);
  }
  delete form.dataset.sending;
  for (const button of form.querySelectorAll("button")) button.disabled = false;
}

document.addEventListener("DOMContentLoaded", () => {
  if (!document.getElementById("play")) return;
  followPlay();
  window.addEventListener("offline", () => showOnline(false));
  document.addEventListener("click", (event) => {
    const link = event.target.closest("#play a[data-frag], #play svg a");
    if (!link) return;
    event.preventDefault();
    loadPlay(link.getAttribute("href"));
  });
  document.addEventListener("submit", (event) => {
    const form = event.target;
    // The table's hint panel inside #play has its own script (cryptid/table.js).
    if (!form.matches("#play form[data-live]") || form.closest("#table")) return;
    event.preventDefault();
    sendMove(form, event.submitter);
  });
});
