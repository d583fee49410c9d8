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
