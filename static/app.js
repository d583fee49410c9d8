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
  const news = document.getElementById("news");
  if (news) news.addEventListener("click", () => news.classList.remove("live"));
});

// The live pages' scripts (play.js, cryptid/table.js) share this: milliseconds to wait before asking again after
// the `refusals`-th refusal in a row (429 busy, 503 database away, or no answer): what the server asked for
// (Retry-After, seconds; else 3 s), doubled with each refusal in a row up to a minute, so that a server under a
// flood hears less and less from its phones, and from 0.75 to 1.25 times that at random, so that phones refused
// together do not all come back together.
const LONGEST_RETRY_MS = 60000;
function retryDelay(response, refusals) {
  const seconds = Number(response?.headers.get("Retry-After"));
  const asked = (seconds > 0 && seconds < 600 ? seconds : 3) * 1000;
  const grown = Math.min(LONGEST_RETRY_MS, asked * 2 ** Math.min(Math.max(refusals - 1, 0), 10));
  return grown * (0.75 + Math.random() * 0.5);
}

// The live pages' scripts swap fresh fragments in as the table moves. A swap between a finger's press and its
// release replaces the button under it, and the browser then makes no click: the tap is lost (a host's "Start"
// as a phone joins). So an update that arrives meanwhile waits (released()) for the release and the click it
// makes, or a couple of seconds at most, for a press that never ends here.
let pressed = null;
const LONGEST_PRESS_MS = 2000;
document.addEventListener("pointerdown", () => {
  let release;
  pressed = new Promise((resolve) => { release = () => setTimeout(resolve, 0); });  // after the click
  pressed.release = release;
  setTimeout(release, LONGEST_PRESS_MS);
}, true);
for (const type of ["pointerup", "pointercancel"]) {
  document.addEventListener(type, () => { pressed?.release(); pressed = null; }, true);
}
const released = () => pressed || Promise.resolve();

// The live pages' scripts keep what a person was doing in a fragment they redraw: each field's state (a ticked box
// or radio, text typed where the fresh field is empty) goes over to the fresh field of the same id and type.
function keepFields(current, fresh) {
  for (const field of current.querySelectorAll("input[id]:not([type=hidden])")) {
    const twin = fresh.querySelector(`#${CSS.escape(field.id)}`);
    if (!twin || twin.type !== field.type) continue;
    if (field.type === "checkbox" || field.type === "radio") twin.checked = field.checked;
    else if (!twin.value) twin.value = field.value;
  }
}
