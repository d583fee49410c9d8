// Decrypto: the sand timer counts down from the seconds the server said were left, and the encryptor's code
// shows only while held. Elements are looked up afresh each time: the live fragment is swapped (play.js).
"use strict";

// Numbers in the page's language's digits, as the server writes them (Persian digits on a Persian page).
const readerNumber = (number) => number.toLocaleString(document.documentElement.lang, { useGrouping: false });

function tickSandTimers() {
  for (const timer of document.querySelectorAll("[data-seconds]")) {
    timer.dataset.end ||= String(Date.now() + Number(timer.dataset.seconds) * 1000);
    const left = Math.max(0, Math.ceil((Number(timer.dataset.end) - Date.now()) / 1000));
    const text = left > 0 ? readerNumber(left) : timer.dataset.done;
    const output = timer.querySelector("output");
    if (output.textContent !== text) output.textContent = text;
    timer.classList.toggle("done", left === 0);
  }
}

const peekOf = (event) => event.target.closest?.("details.peek > summary")?.parentElement;

document.addEventListener("DOMContentLoaded", () => {
  tickSandTimers();
  setInterval(tickSandTimers, 250);
  document.addEventListener("pointerdown", (event) => {
    const peek = peekOf(event);
    if (peek) { event.preventDefault(); peek.open = true; }
  });
  const close = () => { for (const peek of document.querySelectorAll("details.peek[open]")) peek.open = false; };
  for (const kind of ["pointerup", "pointercancel"]) document.addEventListener(kind, close);
  // With a script the code is open only while held: a tap alone must not leave it open.
  document.addEventListener("click", (event) => { if (peekOf(event)) event.preventDefault(); });
  document.addEventListener("contextmenu", (event) => { if (peekOf(event)) event.preventDefault(); });
});
