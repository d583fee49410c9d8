// The home page's deal form: offer only what the chosen table can play; the server checks it all again.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("deal-form");
  if (form) dealForm(form);
});

// With 2 players the app referees only Markers (the note beside the choice says why), so "The app referees" is
// disabled while 2 players and classic Cryptid are chosen; Markers offers no fifth player; the computer-seat
// picker lists only the table's seats.
function dealForm(form) {
  const referee = form.querySelector("input[name='how'][value='referee']");
  const box = form.querySelector("input[name='how'][value='box']");
  const note = document.getElementById("two-players-note");
  const seats = [...form.querySelectorAll(".seat-choice[data-seat]")];
  function update() {
    const markers = form.querySelector("input[name='variant']:checked")?.value === "markers";
    const five = form.querySelector("input[name='players'][value='5']");
    if (markers && five.checked) form.querySelector("input[name='players'][value='4']").checked = true;
    five.disabled = markers;  // Markers is for 2 to 4 players, as its label says
    const players = Number(form.querySelector("input[name='players']:checked")?.value || 0);
    const refused = players === 2 && !markers;
    if (refused && referee.checked) box.checked = true;
    referee.disabled = refused;
    note.classList.toggle("warning", refused);
    for (const label of seats) {
      const beyond = players > 0 && Number(label.dataset.seat) > players;
      label.hidden = beyond;
      label.querySelector("select").disabled = beyond;
    }
  }
  form.addEventListener("change", update);
  update();
}
