// Small progressive enhancements; every page works without this file.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("[data-print]")) {
    button.addEventListener("click", () => window.print());
  }

  // Check a hex without reloading: the answer comes from the map the server drew for this seat.
  const answer = document.getElementById("check");
  const map = document.querySelector(".seat-map");
  if (answer && map) {
    map.addEventListener("click", (event) => {
      const link = event.target.closest("a[href^='?check=']");
      if (!link) return;
      event.preventDefault();
      const allowed = link.querySelector("use").classList.contains("in");
      answer.classList.toggle("disc", allowed);
      answer.classList.toggle("cube", !allowed);
      const name = document.createElement("strong");
      name.textContent = link.getAttribute("aria-label") + ". ";
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
