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
