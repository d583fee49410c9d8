// The host screen's 30-second timer: a countdown started by a button, purely on this screen, no server state.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("[data-countdown]")) {
    const output = button.parentElement.querySelector(".countdown");
    let timer = null;
    button.addEventListener("click", () => {
      clearInterval(timer);
      const end = Date.now() + Number(button.dataset.countdown) * 1000;
      const tick = () => {
        const left = Math.max(0, Math.ceil((end - Date.now()) / 1000));
        output.textContent = left > 0 ? String(left) : button.dataset.done;
        output.classList.toggle("done", left === 0);
        if (left === 0) clearInterval(timer);
      };
      tick();
      timer = setInterval(tick, 250);
    });
  }
});
