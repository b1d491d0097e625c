# Starts the notes app of notes_app.rb (see there):
#
#   ruby notes.rb PORT
require_relative "notes_app"

serve(Integer(ARGV.fetch(0)))
