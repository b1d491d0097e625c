# A notes app of a few routes on Ruby's standard library (a TCPServer, HTTP/1.0 by hand):
# the bundled Ruby server for wayfarer's server-side tests (its coverage read through
# Ruby's Coverage, its output as a failure's evidence). Started by notes.rb, as a Rails
# app is by its `rails` script: Ruby's Coverage measures required files, not the main one.
#
# Routes: / (the notes), /notes/N (one note), /report (a monthly report whose average
# divides by the notes of an empty month: a 500, its backtrace on stderr, as Rails prints
# an unhandled error).
require "socket"
require "cgi"

NOTES = [
  { title: "Groceries", body: "Milk, eggs, bread." },
  { title: "Ideas", body: "A wiki for the garden." },
  { title: "Trip", body: "Train at 9:40, platform 4." },
].freeze

def page(title, body)
  "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>#{CGI.escapeHTML(title)}</title></head>" \
    "<body><nav><a href=\"/\">Notes</a> <a href=\"/report\">Monthly report</a></nav>" \
    "<main><h1>#{CGI.escapeHTML(title)}</h1>#{body}</main></body></html>"
end

def home
  items = NOTES.each_with_index.map do |n, i|
    "<li><a href=\"/notes/#{i}\">#{CGI.escapeHTML(n[:title])}</a></li>"
  end
  page("Notes", "<ul>#{items.join}</ul>")
end

def note(i)
  n = NOTES[i]
  return [404, page("Not found", "<p>No such note.</p>")] unless n

  [200, page(n[:title], "<p>#{CGI.escapeHTML(n[:body])}</p>")]
end

def average_length(month)
  notes = NOTES.select { |n| n[:month] == month }
  notes.sum { |n| n[:body].length } / notes.size
end

def report
  page("Monthly report", "<p>Average length: #{average_length('2026-12')}</p>")
end

def route(path)
  case path
  when "/" then [200, home]
  when %r{\A/notes/(\d+)\z} then note(Regexp.last_match(1).to_i)
  when "/report" then [200, report]
  else [404, page("Not found", "<p>No such page.</p>")]
  end
end

# Serve on 127.0.0.1:port until killed.
def serve(port)
  server = TCPServer.new("127.0.0.1", port)
  $stdout.sync = true
  $stderr.sync = true
  puts "notes: http://127.0.0.1:#{port}/"
  loop do
    client = server.accept
    begin
      request = client.gets.to_s
      _, target = request.split(" ")
      while (line = client.gets) && line != "\r\n"; end
      path = target.to_s.split("?").first.to_s
      begin
        status, html = route(path)
      rescue StandardError => e
        warn "Internal Server Error: #{path}"
        warn "#{e.class}: #{e.message}"
        e.backtrace.each { |l| warn "  #{l}" }
        status, html = 500, page("Server error", "<p>Something went wrong.</p>")
      end
      client.write "HTTP/1.0 #{status} X\r\nContent-Type: text/html; charset=utf-8\r\n" \
                   "Content-Length: #{html.bytesize}\r\nConnection: close\r\n\r\n#{html}"
      warn "GET #{path} #{status}"
    rescue StandardError => e
      warn "connection: #{e.message}"
    ensure
      client.close
    end
  end
end
