// Refereed play: live updates and moves without reloads; the pages work without this file.
"use strict";

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
    if (field.type === "checkbox" || field.type === "radio") twin.checked = field.checked;
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

function retryAfter(response) {
  const seconds = Number(response.headers.get("Retry-After"));
  return (seconds > 0 && seconds < 600 ? seconds : 3) * 1000;
}

async function followPlay() {
  // One waiting request at a time; on errors (offline, asleep) wait a little and ask again with the version.
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
      // A tap moved the page to another step while this request waited (or while its answer was read): that
      // answer would undo the tap, so drop it; the next request asks again from the new step.
      const moved = document.getElementById("play")?.dataset.live !== asked;
      if (response.status === 200 && !moved) swapPlay(text);
      // Busy (429) or its database away (503): ask again when the server says (Retry-After, seconds), else in 3 s.
      else if (response.status !== 304 && !moved) await new Promise((r) => setTimeout(r, retryAfter(response)));
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
    // The pressed button's name and value belong to the form's data ("Join White" sends team=white), as in a
    // plain post; FormData(form) alone leaves them out.
    const body = new FormData(form);
    if (event.submitter && event.submitter.name) body.append(event.submitter.name, event.submitter.value);
    // getAttribute: the forms have a field named "action", which hides the form's own action property.
    const response = await fetch(form.getAttribute("action"), {
      method: "POST", body, headers: { "X-Requested-With": "fetch" },
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
