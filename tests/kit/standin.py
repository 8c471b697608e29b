"""A stand-in for torch.cuda that records every call the kit makes, so the
kit's GPU code runs on a machine without a GPU (its tensors stay on the
CPU) and a test can read, in order, what was synchronized, recorded and
timed. Events read the same clock as the kit's host timers; the clock
itself is logged, as are the kit's marks (warm-up ended, sample began).
Memory figures come from a simple ledger of what the kit asked for, so
the allocator and memory experiments produce their whole envelope."""
import contextlib
import time


class Recorder:
    def __init__(self):
        self.log = []  # ("sync",) ("clock",) ("record", id) ("event_sync", id) ("elapsed", a, b) ("mark", what, label)
        self.t = 0.0

    def clock(self):
        # Real time, so the kit's arithmetic sees real (small) durations.
        self.log.append(("clock",))
        return time.perf_counter()

    def hook(self, what, label):
        self.log.append(("mark", what, label))


class _Event:
    _next = 0

    def __init__(self, rec, enable_timing=False):
        _Event._next += 1
        self.id, self.rec, self.t, self.timing = _Event._next, rec, None, enable_timing

    def record(self, stream=None):
        self.t = time.perf_counter()
        self.rec.log.append(("record", self.id))

    def synchronize(self):
        self.rec.log.append(("event_sync", self.id))

    def elapsed_time(self, end):
        self.rec.log.append(("elapsed", self.id, end.id))
        if not (self.timing and end.timing) or self.t is None or end.t is None:
            raise RuntimeError("stand-in: elapsed_time on events not recorded with enable_timing")
        return (end.t - self.t) * 1e3


class _Stream:
    def wait_stream(self, other):
        pass

    def wait_event(self, event):
        pass

    def synchronize(self):
        pass


class _Graph:
    def __init__(self, rec):
        self.rec = rec

    def replay(self):
        self.rec.log.append(("replay",))


class StandInCuda:
    """The parts of torch.cuda the kit uses."""

    def __init__(self, rec, total=16 << 30):
        self.rec, self.total = rec, total
        self.fraction = 1.0
        self.segments = 0
        self.cached = 0  # bytes the caching allocator holds unused (what empty_cache gives back)

    # synchronization and timing
    def synchronize(self, device=None):
        self.rec.log.append(("sync",))

    def Event(self, enable_timing=False, **kw):  # noqa: N802 (torch's name)
        return _Event(self.rec, enable_timing)

    # streams and graphs
    def Stream(self, *a, **kw):  # noqa: N802
        return _Stream()

    def current_stream(self, device=None):
        return _Stream()

    @contextlib.contextmanager
    def stream(self, s):
        yield

    def CUDAGraph(self):  # noqa: N802
        return _Graph(self.rec)

    @contextlib.contextmanager
    def graph(self, g, **kw):
        self.rec.log.append(("capture",))
        yield

    def _sleep(self, cycles):
        self.rec.log.append(("sleep", cycles))

    # memory: a ledger the numbers come from
    def mem_get_info(self, device=None):
        used = (300 << 20) + self.cached
        return self.total - used, self.total

    def memory_allocated(self, device=None):
        return 0

    def memory_reserved(self, device=None):
        return self.cached

    def max_memory_allocated(self, device=None):
        return 0

    def max_memory_reserved(self, device=None):
        return 0

    def reset_peak_memory_stats(self, device=None):
        pass

    def memory_stats(self, device=None):
        self.segments += 1
        return {"segment.all.allocated": self.segments}

    def empty_cache(self):
        self.cached = 0

    def memory_snapshot(self):
        # one segment with a freed 4 MiB piece between two live ones
        return [{"blocks": [{"size": 4 << 20, "state": "active_allocated"}, {"size": 4 << 20, "state": "inactive"},
                            {"size": 4 << 20, "state": "active_allocated"}]}]

    def set_per_process_memory_fraction(self, fraction, device=None):
        self.fraction = fraction
