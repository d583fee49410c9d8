// Refereed Cryptid: every move announced with its piece dropping in, the tapped hex kept above the action sheet,
// and a log line's hex ringed when the line is tapped. Builds on play.js (its "play:swapped" event).
"use strict";

// A new move: the banner flashes and the pieces just placed drop in, inside the ring of the last move.
function announceMove(play) {
  const banner = play.querySelector("#announce");
  if (banner) banner.classList.add("fresh");
  const ring = play.querySelector(".last-move");
  if (!ring) return;
  const x = Number(ring.getAttribute("cx"));
  const y = Number(ring.getAttribute("cy"));
  ring.classList.add("fresh");
  for (const shape of play.querySelectorAll(".pieces circle:not(.last-move), .pieces rect")) {
    const box = shape.getBBox();
    if (Math.hypot(box.x + box.width / 2 - x, box.y + box.height / 2 - y) < 9) shape.parentElement.classList.add("fresh");
  }
}

// The sheet covers the bottom of the screen: the hex it is about must stay visible above it.
function keepSelectionInView(play) {
  const sheet = play.querySelector("#sheet");
  const here = play.querySelector("#here");
  if (!sheet || !here) return;
  const hex = here.getBoundingClientRect();
  const top = sheet.getBoundingClientRect().top;
  if (hex.bottom > top - 8) window.scrollBy({ top: hex.bottom - top + 24 });
  else if (hex.top < 0) window.scrollBy({ top: hex.top - 24 });
}

// A log line names a hex: tapping it rings that hex on the board. Hexes are found by the coordinates the
// server wrote on the line; a board whose hexes carry data-hex="D7" hooks serves as well.
function ringHex(line) {
  const spot = document.getElementById("spot");
  if (!spot) return;
  let { x, y } = line.dataset;
  if (x === undefined && line.dataset.hex) {
    const hex = document.querySelector(`#play svg [data-hex="${CSS.escape(line.dataset.hex)}"]`);
    if (!hex) return;
    const box = hex.getBBox();
    x = box.x + box.width / 2;
    y = box.y + box.height / 2;
  }
  if (x === undefined) return;
  spot.setAttribute("cx", x);
  spot.setAttribute("cy", y);
  spot.classList.remove("on");
  void spot.getBBox(); // restart the animation when the same line is tapped again
  spot.classList.add("on");
  document.querySelector("#play svg").scrollIntoView({ block: "nearest", behavior: "smooth" });
}

// The log reads in the order things happened: keep its newest moves in view, from the first since the player's
// own last turn.
function showRecentLog(play) {
  const list = play.querySelector(".log-list");
  if (!list) return;
  const since = list.querySelector("li[data-since]");
  list.scrollTop = since ? since.offsetTop - list.offsetTop : list.scrollHeight;
}

let crossingWaits = false;

document.addEventListener("play:swapped", (event) => {
  const { play, moved, tapped } = event.detail;
  if (crossingWaits && play.querySelector("form.cross")) {
    crossingWaits = false;
    play.querySelector("form.cross").requestSubmit();
  }
  if (moved) announceMove(play);
  showRecentLog(play);
  // The seat's name may have changed (a name saved in the lobby): the heading outside the fragment follows.
  const heading = document.querySelector(".seat-head h1");
  if (heading && play.dataset.name && heading.textContent !== play.dataset.name) heading.textContent = play.dataset.name;
  if (tapped) keepSelectionInView(play);
});

document.addEventListener("DOMContentLoaded", () => {
  const play = document.getElementById("play");
  if (play) showRecentLog(play);
  // The notebook: a clue crossed off (or put back) is saved at once; without this file its button saves it.
  // A box ticked while the previous one is being saved is sent with the fragment that answer brings (the
  // ticks on the page survive the swap).
  document.addEventListener("change", (event) => {
    const box = event.target.closest && event.target.closest("#play form.cross input[type=checkbox]");
    if (!box) return;
    if (box.form.dataset.sending) crossingWaits = true;
    else box.form.requestSubmit();
  });
  document.addEventListener("click", (event) => {
    const line = event.target.closest("#play .log-list [data-x], #play .log-list [data-hex]");
    if (line) ringHex(line);
  });
  document.addEventListener("keydown", (event) => {
    const line = event.target.closest && event.target.closest("#play .log-list [tabindex]");
    if (line && (event.key === "Enter" || event.key === " ")) { event.preventDefault(); ringHex(line); }
  });
});
