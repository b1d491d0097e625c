# wayfarer: Ruby's Coverage in every Ruby process of the server under test, required at
# start-up (RUBYOPT=-r...) before the application loads. Each process registers its pid
# and, whenever wayfarer touches the trigger file (and as it exits), writes the lines of
# the server's own files it ran since the last time to a file of its own. Nothing happens
# without WAYFARER_COVERAGE_DIR, so a Ruby process started for something else is untouched.
if (wayfarer_dir = ENV["WAYFARER_COVERAGE_DIR"])
  begin
    require "coverage"
    require "json"
    require "rbconfig"
    Coverage.start(lines: true) unless Coverage.respond_to?(:running?) && Coverage.running?
    module WayfarerCoverage
      DIR = ENV["WAYFARER_COVERAGE_DIR"]
      INCLUDE = ENV.fetch("WAYFARER_COVERAGE_INCLUDE", "").split("\n").reject(&:empty?)
      OMIT = ENV.fetch("WAYFARER_COVERAGE_OMIT", "").split("\n").reject(&:empty?)
      @seq = 0
      @lock = Mutex.new

      def self.keep?(path)
        (INCLUDE.empty? || INCLUDE.any? { |p| File.fnmatch(p, path) }) &&
          OMIT.none? { |p| File.fnmatch(p, path) }
      end

      def self.register
        File.write(File.join(DIR, "procs", "pid.#{Process.pid}"), RbConfig.ruby)
      rescue StandardError
        nil
      end

      # The lines run since the last save, of the server's own files, to a new file.
      def self.save(count)
        @lock.synchronize do
          out = {}
          Coverage.result(stop: false, clear: true).each do |path, cov|
            next unless keep?(path)
            lines = cov.is_a?(Hash) ? cov[:lines] : cov
            next unless lines
            run = []
            lines.each_with_index { |n, i| run << i + 1 if n && n > 0 }
            out[path] = run unless run.empty?
          end
          @seq += 1
          name = File.join(DIR, "data", "rb.#{Process.pid}.#{@seq}.json")
          File.write("#{name}.tmp", JSON.generate(out))
          File.rename("#{name}.tmp", name)
          if count
            saved = File.join(DIR, "procs", "saved.#{Process.pid}")
            File.write("#{saved}.tmp", count)
            File.rename("#{saved}.tmp", saved)
          end
        end
      rescue StandardError => e
        unless @said
          @said = true
          warn "wayfarer: Ruby coverage could not save: #{e.inspect}"
        end
      end

      def self.watch
        Thread.new do
          seen = nil
          trigger = File.join(DIR, "take")
          loop do
            sleep 0.005
            begin
              count = File.read(trigger).strip
              if !count.empty? && count != seen
                seen = count
                save(count)
              end
            rescue StandardError
              next
            end
          end
        end
      end

      # A forked worker is a process of its own: its pid, its watcher.
      module Fork
        def _fork
          pid = super
          if pid.zero?
            WayfarerCoverage.register
            WayfarerCoverage.watch
          end
          pid
        end
      end
    end
    Process.singleton_class.prepend(WayfarerCoverage::Fork) if Process.respond_to?(:_fork)
    at_exit { WayfarerCoverage.save(nil) }
    WayfarerCoverage.register
    WayfarerCoverage.watch
  rescue LoadError, StandardError => e
    warn "wayfarer: Ruby coverage not started: #{e.inspect}"
  end
end
