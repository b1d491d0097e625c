# wayfarer: coverage.py in every Python process of the server under test, imported at
# start-up because wayfarer put this folder first on PYTHONPATH. Each process registers
# its pid, saves its data whenever wayfarer touches the trigger file, and before it exits
# (also a forked child that leaves with os._exit). Nothing happens without
# WAYFARER_COVERAGE_DIR, so a process the server starts for something else is untouched.
# The sitecustomize this one shadows still runs, after it.
import os
import sys


def _wayfarer_coverage():
    work = os.environ.get("WAYFARER_COVERAGE_DIR")
    if not work:
        return
    procs = os.path.join(work, "procs")
    try:
        import coverage
    except ImportError:
        with open(os.path.join(procs, "missing.%d" % os.getpid()), "w") as f:
            f.write(sys.executable)
        return
    import threading
    import time

    split = lambda v: [p for p in os.environ.get(v, "").split("\n") if p]
    cov = coverage.Coverage(
        data_file=os.path.join(work, "data", "cov"),
        data_suffix=True,
        include=split("WAYFARER_COVERAGE_INCLUDE") or None,
        omit=split("WAYFARER_COVERAGE_OMIT") or None,
        config_file=False,
    )
    cov.start()
    state = {"cov": cov}
    trigger = os.path.join(work, "take")

    def register():
        pid = os.getpid()
        with open(os.path.join(procs, "pid.%d" % pid), "w") as f:
            f.write(sys.executable)

    def save(count):
        try:
            state["cov"].save()
        except Exception as e:  # a save that fails says why, once per process
            if not state.get("said"):
                state["said"] = True
                sys.stderr.write("wayfarer: coverage.py could not save: %r\n" % (e,))
        if count is not None:
            saved = os.path.join(procs, "saved.%d" % os.getpid())
            try:
                with open(saved + ".tmp", "w") as f:
                    f.write(count)
                os.replace(saved + ".tmp", saved)
            except OSError as e:
                if not state.get("said"):
                    state["said"] = True
                    sys.stderr.write("wayfarer: coverage.py cannot say it saved: %r\n" % (e,))

    def watch():
        seen = None
        while True:
            time.sleep(0.005)
            try:
                with open(trigger) as f:
                    count = f.read().strip()
                if count and count != seen:
                    seen = count
                    save(count)
            except Exception:
                # One lost reading (a file being replaced); the watcher must go on.
                continue

    def start_watching():
        threading.Thread(target=watch, name="wayfarer-coverage", daemon=True).start()

    def after_fork():
        # A forked worker is a process of its own: its own data file and watcher.
        state["cov"].stop()
        fresh = coverage.Coverage(
            data_file=os.path.join(work, "data", "cov"),
            data_suffix=True,
            include=split("WAYFARER_COVERAGE_INCLUDE") or None,
            omit=split("WAYFARER_COVERAGE_OMIT") or None,
            config_file=False,
        )
        fresh.start()
        state["cov"] = fresh
        register()
        start_watching()

    real_exit = os._exit

    def exit_saving(code):
        save(None)
        real_exit(code)

    os._exit = exit_saving
    os.register_at_fork(after_in_child=after_fork)
    import atexit

    atexit.register(save, None)
    register()
    start_watching()


def _wayfarer_chain():
    # This module shadows any other sitecustomize on the path (a venv's, the system's):
    # run the next one as Python would have.
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    for d in sys.path:
        d = os.path.abspath(d or ".")
        if d == here:
            continue
        nxt = os.path.join(d, "sitecustomize.py")
        if os.path.isfile(nxt):
            spec = importlib.util.spec_from_file_location("_wayfarer_next_sitecustomize", nxt)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return


_wayfarer_coverage()
del _wayfarer_coverage
_wayfarer_chain()
del _wayfarer_chain
