// kubectl applyset ui: served as a file, as the page's Content-Security-Policy
// runs no inline script.
"use strict";

// The token of this run of the server, which every request that changes
// something sends in the X-Applyset-Token header.
const applysetToken = document.querySelector('meta[name="applyset-token"]').content;

// send is fetch for requests that change something: same origin, with the token.
function send(url, options = {}) {
  const headers = new Headers(options.headers);
  headers.set("X-Applyset-Token", applysetToken);
  return fetch(url, { ...options, headers, credentials: "same-origin" });
}
window.applyset = { send };

// A search box filters the rows of the table it names by their text.
for (const input of document.querySelectorAll("input[data-filters]")) {
  const rows = document.querySelectorAll("#" + input.dataset.filters + " tbody tr");
  input.addEventListener("input", () => {
    const words = input.value.toLowerCase();
    for (const row of rows) {
      row.hidden = !row.textContent.toLowerCase().includes(words);
    }
  });
}
