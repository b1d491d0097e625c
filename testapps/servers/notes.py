"""A notes app of a few routes, served by Python's standard library: the bundled Python
server for wayfarer's server-side tests (its output as a failure's evidence, its
coverage measured by coverage.py).

    python3 notes.py PORT

Routes: / (the notes, a search form), /notes/N (one note), /search?q=... (a search;
a query with a quote breaks its "query parser"), /new (a form that adds a note),
/report (a monthly report whose average divides by the notes of an empty month: a 500
with a traceback on stderr, as Django's and Flask's development servers print them).
"""

import html
import sys
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

NOTES = [
    {"title": "Groceries", "body": "Milk, eggs, bread."},
    {"title": "Ideas", "body": "A wiki for the garden."},
    {"title": "Trip", "body": "Train at 9:40, platform 4."},
]


def page(title, body):
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>%s</title></head>"
        "<body><nav><a href='/'>Notes</a> <a href='/new'>New note</a> "
        "<a href='/report'>Monthly report</a></nav><main><h1>%s</h1>%s</main></body></html>"
        % (html.escape(title), html.escape(title), body)
    )


def home():
    items = "".join(
        "<li><a href='/notes/%d'>%s</a></li>" % (i, html.escape(n["title"]))
        for i, n in enumerate(NOTES)
    )
    form = (
        "<form action='/search' method='get'><label>Search "
        "<input name='q' type='search'></label><button>Search</button></form>"
    )
    return page("Notes", "<ul>%s</ul>%s" % (items, form))


def note(i):
    n = NOTES[i]
    return page(n["title"], "<p>%s</p>" % html.escape(n["body"]))


def parse_query(q):
    # Quotes open a phrase; an unclosed one is the parser's bug.
    if q.count('"') % 2:
        raise ValueError("unterminated phrase in query %r" % q)
    return [w for w in q.replace('"', " ").split() if w]


def search(q):
    words = parse_query(q)
    hits = [
        "<li><a href='/notes/%d'>%s</a></li>" % (i, html.escape(n["title"]))
        for i, n in enumerate(NOTES)
        if any(w.lower() in (n["title"] + n["body"]).lower() for w in words)
    ]
    found = "<ul>%s</ul>" % "".join(hits) if hits else "<p>Nothing found.</p>"
    return page("Search", found)


def average_length(month):
    notes = [n for n in NOTES if n.get("month") == month]
    return sum(len(n["body"]) for n in notes) / len(notes)


def report():
    return page("Monthly report", "<p>Average length: %.1f</p>" % average_length("2026-12"))


NEW_FORM = (
    "<form method='post' action='/new'><label>Title <input name='title' required></label>"
    "<label>Body <textarea name='body'></textarea></label><button>Save</button></form>"
)


class Handler(BaseHTTPRequestHandler):
    def respond(self, status, body):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def route(self, method):
        url = urlparse(self.path)
        if method == "POST" and url.path == "/new":
            length = int(self.headers.get("Content-Length") or 0)
            form = parse_qs(self.rfile.read(length).decode())
            title = form.get("title", [""])[0].strip() or "Untitled"
            NOTES.append({"title": title, "body": form.get("body", [""])[0]})
            return 200, note(len(NOTES) - 1)
        if url.path == "/":
            return 200, home()
        if url.path == "/new":
            return 200, page("New note", NEW_FORM)
        if url.path.startswith("/notes/"):
            i = url.path[len("/notes/"):]
            if i.isdigit() and int(i) < len(NOTES):
                return 200, note(int(i))
            return 404, page("Not found", "<p>No such note.</p>")
        if url.path == "/search":
            return 200, search(parse_qs(url.query).get("q", [""])[0])
        if url.path == "/report":
            return 200, report()
        return 404, page("Not found", "<p>No such page.</p>")

    def handle_one(self, method):
        try:
            status, body = self.route(method)
        except Exception:
            # What a development server does: the traceback to stderr, a 500 to the browser.
            sys.stderr.write("Internal Server Error: %s\n" % self.path)
            traceback.print_exc()
            status, body = 500, page("Server error", "<p>Something went wrong.</p>")
        self.respond(status, body)

    def do_GET(self):
        self.handle_one("GET")

    def do_POST(self):
        self.handle_one("POST")

    def log_message(self, fmt, *args):
        sys.stderr.write("%s - %s\n" % (self.address_string(), fmt % args))


if __name__ == "__main__":
    port = int(sys.argv[1])
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print("notes: http://127.0.0.1:%d/" % port, flush=True)
    server.serve_forever()
