// A notes app of a few routes on Node's own http module: the bundled Node server for
// wayfarer's server-side tests (its output as a failure's evidence, its coverage read
// over the inspector).
//
//   node notes.mjs PORT
//
// Routes: / (the notes, a search form), /notes/N (one note), /search?q=... (a query with
// a quote breaks its "query parser"), /new (a form that adds a note), /report (a monthly
// report whose average divides by the notes of an empty month: a 500, its stack on
// stderr, as Express prints an unhandled error).
import http from "node:http";

const notes = [
  { title: "Groceries", body: "Milk, eggs, bread." },
  { title: "Ideas", body: "A wiki for the garden." },
  { title: "Trip", body: "Train at 9:40, platform 4." },
];

const escape = (s) =>
  String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title, body) {
  return (
    `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${escape(title)}</title></head>` +
    `<body><nav><a href="/">Notes</a> <a href="/new">New note</a> ` +
    `<a href="/report">Monthly report</a></nav><main><h1>${escape(title)}</h1>${body}</main></body></html>`
  );
}

function home() {
  const items = notes
    .map((n, i) => `<li><a href="/notes/${i}">${escape(n.title)}</a></li>`)
    .join("");
  const form =
    `<form action="/search" method="get"><label>Search <input name="q" type="search"></label>` +
    `<button>Search</button></form>`;
  return page("Notes", `<ul>${items}</ul>${form}`);
}

function note(i) {
  return page(notes[i].title, `<p>${escape(notes[i].body)}</p>`);
}

function parseQuery(q) {
  // Quotes open a phrase; an unclosed one is the parser's bug.
  if ((q.match(/"/g) || []).length % 2) {
    throw new SyntaxError(`unterminated phrase in query ${JSON.stringify(q)}`);
  }
  return q.replace(/"/g, " ").split(/\s+/).filter(Boolean);
}

function search(q) {
  const words = parseQuery(q).map((w) => w.toLowerCase());
  const hits = notes
    .map((n, i) => [n, i])
    .filter(([n]) => words.some((w) => (n.title + n.body).toLowerCase().includes(w)))
    .map(([n, i]) => `<li><a href="/notes/${i}">${escape(n.title)}</a></li>`);
  return page("Search", hits.length ? `<ul>${hits.join("")}</ul>` : "<p>Nothing found.</p>");
}

function averageLength(month) {
  const of = notes.filter((n) => n.month === month);
  const avg = of.reduce((sum, n) => sum + n.body.length, 0) / of.length;
  if (!Number.isFinite(avg)) {
    throw new RangeError(`no average for ${month}: ${of.length} notes`);
  }
  return avg;
}

function report() {
  return page("Monthly report", `<p>Average length: ${averageLength("2026-12").toFixed(1)}</p>`);
}

const NEW_FORM =
  `<form method="post" action="/new"><label>Title <input name="title" required></label>` +
  `<label>Body <textarea name="body"></textarea></label><button>Save</button></form>`;

function route(method, url, body) {
  if (method === "POST" && url.pathname === "/new") {
    const form = new URLSearchParams(body);
    notes.push({ title: (form.get("title") || "").trim() || "Untitled", body: form.get("body") || "" });
    return [200, note(notes.length - 1)];
  }
  if (url.pathname === "/") return [200, home()];
  if (url.pathname === "/new") return [200, page("New note", NEW_FORM)];
  const m = url.pathname.match(/^\/notes\/(\d+)$/);
  if (m) {
    const i = Number(m[1]);
    return i < notes.length ? [200, note(i)] : [404, page("Not found", "<p>No such note.</p>")];
  }
  if (url.pathname === "/search") return [200, search(url.searchParams.get("q") || "")];
  if (url.pathname === "/report") return [200, report()];
  return [404, page("Not found", "<p>No such page.</p>")];
}

const server = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    let status;
    let html;
    try {
      [status, html] = route(req.method, new URL(req.url, "http://localhost"), body);
    } catch (e) {
      console.error(`Internal Server Error: ${req.url}`);
      console.error(e.stack);
      [status, html] = [500, page("Server error", "<p>Something went wrong.</p>")];
    }
    res.writeHead(status, { "Content-Type": "text/html; charset=utf-8" });
    res.end(html);
    console.error(`${req.method} ${req.url} ${status}`);
  });
});

const port = Number(process.argv[2]);
server.listen(port, "127.0.0.1", () => console.log(`notes: http://127.0.0.1:${port}/`));
