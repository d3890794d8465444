// Small and dependency-free: theme toggle, keyboard navigation, live list refresh.
(function () {
  const root = document.documentElement;
  const saved = localStorage.getItem("rootward-theme");
  if (saved) root.dataset.theme = saved;
  document.addEventListener("click", (e) => {
    if (e.target.id === "theme") {
      const next = root.dataset.theme === "dark" ? "light" : "dark";
      root.dataset.theme = next; localStorage.setItem("rootward-theme", next);
    }
  });
  let selected = -1;
  const rows = () => Array.from(document.querySelectorAll("tbody[data-live] tr[data-href]"));
  function select(i) {
    const list = rows(); if (!list.length) return;
    selected = Math.max(0, Math.min(list.length - 1, i));
    list.forEach((r, n) => r.classList.toggle("sel", n === selected));
    list[selected].scrollIntoView({ block: "nearest" });
  }
  document.addEventListener("keydown", (e) => {
    if (["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement.tagName)) return;
    if (e.key === "j") select(selected + 1);
    else if (e.key === "k") select(selected - 1);
    else if (e.key === "Enter" && selected >= 0) location.href = rows()[selected].dataset.href;
    else if (e.key === "/") { const f = document.querySelector("[data-filter]"); if (f) { e.preventDefault(); f.focus(); } }
    else if (e.key === "g") location.href = "/incidents";
  });
  document.addEventListener("click", (e) => {
    const tr = e.target.closest("tr[data-href]");
    if (tr && !e.target.closest("a,button")) location.href = tr.dataset.href;
  });
  const body = document.querySelector("tbody[data-live]");
  if (body) {
    setInterval(async () => {
      const r = await fetch(body.dataset.live, { headers: { "accept": "text/html" } });
      if (r.ok) { body.innerHTML = await r.text(); if (selected >= 0) select(selected); }
    }, 10000);
  }
})();
