// kubectl applyset ui: served as a file, as the page's Content-Security-Policy
// runs no inline script.
"use strict";

// The token of this run of the server, which every request that changes
// something, or streams, sends in the X-Applyset-Token header.
const applysetToken = document.querySelector('meta[name="applyset-token"]').content;

// send is fetch for requests that act with the user's rights: same origin,
// with the token.
function send(url, options = {}) {
  const headers = new Headers(options.headers);
  headers.set("X-Applyset-Token", applysetToken);
  return fetch(url, { ...options, headers, credentials: "same-origin" });
}

// A search box filters the rows of the table it names by their text; the
// rows are looked up on each input, as a live update replaces them.
document.addEventListener("input", (e) => {
  const input = e.target;
  if (!input.dataset || !input.dataset.filters) {
    return;
  }
  const words = input.value.toLowerCase();
  for (const row of document.querySelectorAll("#" + input.dataset.filters + " tbody tr")) {
    row.hidden = !row.textContent.toLowerCase().includes(words);
  }
});

// The Approve button posts the digest the page showed; the server approves
// only if the set still awaits that very plan.
const approve = document.querySelector("form[data-approve]");
if (approve) {
  approve.addEventListener("submit", async (e) => {
    e.preventDefault();
    const button = approve.querySelector("button");
    const result = document.getElementById("approve-result");
    button.disabled = true;
    try {
      const res = await send(approve.dataset.approve, { method: "POST", body: new URLSearchParams(new FormData(approve)) });
      result.textContent = (await res.text()).trim();
      result.className = res.ok ? "approved" : "refused";
      button.disabled = res.ok;
    } catch (err) {
      result.textContent = "Not approved: " + err.message;
      result.className = "refused";
      button.disabled = false;
    }
  });
}

// A set's page follows its changes: the server watches the parent, its
// members and its Events as the user, and says "changed"; the page then
// reads its live part again, keeping the place, focus and filter.
const status = document.querySelector("[data-live]");
if (status) {
  follow(status.dataset.live);
}

async function follow(url) {
  for (;;) {
    try {
      const res = await send(url, { method: "POST" });
      if (!res.ok) {
        status.textContent = "Live updates stopped: " + (await res.text()).trim() + " Reload the page to try again.";
        return;
      }
      await readEvents(res.body, (name, data) => {
        if (name === "ready") {
          status.dataset.stream = "open";
        } else if (name === "changed") {
          refresh();
        } else if (name === "notice") {
          status.textContent = data;
        }
      });
    } catch (err) {
      status.textContent = "Live updates lost (" + err.message + "); trying again.";
    }
    delete status.dataset.stream;
    await new Promise((r) => setTimeout(r, 2000));
    await refresh(); // whatever changed while the stream was away
  }
}

// readEvents calls on(name, data) for each server-sent event of body.
async function readEvents(body, on) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) {
      return;
    }
    buf += value;
    let end;
    while ((end = buf.indexOf("\n\n")) >= 0) {
      let name = "message", data = "";
      for (const line of buf.slice(0, end).split("\n")) {
        if (line.startsWith("event: ")) name = line.slice(7);
        if (line.startsWith("data: ")) data = line.slice(6);
      }
      buf = buf.slice(end + 2);
      on(name, data);
    }
  }
}

let refreshes = 0;
let reading = null; // the read under way, if any
let readAgain = false; // a change came while it was under way

// refresh reads the page again and puts its live part in place: one read at a
// time, and one more after it for whatever changed meanwhile, so a big set
// that changes all the time costs one read after another, never a pile of them.
async function refresh() {
  if (reading) {
    readAgain = true;
    return reading;
  }
  reading = (async () => {
    do {
      readAgain = false;
      await readLive();
    } while (readAgain);
  })();
  try {
    await reading;
  } finally {
    reading = null;
  }
}

async function readLive() {
  let res;
  try {
    res = await fetch(location.href, { credentials: "same-origin" });
  } catch (err) {
    status.textContent = "The set could not be read again: " + err.message;
    return;
  }
  if (!res.ok) {
    status.textContent = "The set could not be read again: " + res.status + " " + res.statusText;
    return;
  }
  const fresh = new DOMParser().parseFromString(await res.text(), "text/html").getElementById("live");
  const live = document.getElementById("live");
  if (!fresh || !live) {
    return;
  }
  const filter = document.getElementById("filter");
  const words = filter ? filter.value : "";
  const focused = document.activeElement && document.activeElement.id;
  live.replaceWith(fresh);
  const again = document.getElementById("filter");
  if (again && words) {
    again.value = words;
    again.dispatchEvent(new Event("input", { bubbles: true }));
  }
  if (focused && document.getElementById(focused)) {
    document.getElementById(focused).focus();
  }
  refreshes++;
  fresh.dataset.refreshes = String(refreshes);
  status.textContent = "Updated at " + new Date().toLocaleTimeString() + ".";
  document.dispatchEvent(new Event("applyset:updated"));
}
