#!/usr/bin/env python3
"""The GPU lease's one archive (tools/gpu_session.sh; docs/gpu-session.md):
`pack` gathers what the lease's steps left in its work folder into
OUT/gpulab-lease.tar.gz, each file at the place it takes in the
repository, and writes OUT/summary.txt; `unpack` puts an archive's files
in those places.

Every part has a size budget, in bytes as stored (a trace gzipped); a file
that does not fit what its part has left is left out and named in the
summary, so the archive is at most 16 MiB however large the runs were (the
device tool brings back at most 8 files of 16 MiB). Logs are cut to their
last 200 lines first.

    tools/lease_archive.py pack WORK OUT
    tools/lease_archive.py unpack ARCHIVE REPO
"""
import glob
import gzip
import io
import json
import os
import re
import sys
import tarfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recorded_index import index_of, write_index  # noqa: E402  (beside this file)

MIB = 1 << 20
ARCHIVE = "gpulab-lease.tar.gz"
ARCHIVE_MAX = 16 * MIB
# Budgets per part (their sum, 15.25 MiB, leaves room for tar's headers).
BUDGETS = {"recordings": 5 * MIB, "tables": 3 * MIB, "traces": 6 * MIB, "errors": MIB // 4, "logs": MIB}
TRACE_MAX = 3 * MIB  # one trace, gzipped
LOG_LINES, LOG_LINE_CHARS = 200, 400
# Where an archive may put files (unpack refuses anything else).
PLACES = re.compile(r"^(web/recorded|tests/doctor/gpu|tests/explain/gpu|"
                    r"tests/gpu/measured/[a-z0-9][a-z0-9.-]*(/(logs|plan|doctor|recorded-kit))?)/[A-Za-z0-9._-]+$")
UNPACK_MAX = 64 * MIB  # what an archive may expand to


def slug_of(device):
    """The GPU's name as a folder name: "NVIDIA H100 80GB HBM3" -> nvidia-h100-80gb-hbm3."""
    devs = ((device or {}).get("runtime") or {}).get("devices") or []
    name = devs[0].get("name") if devs and isinstance(devs[0], dict) else None
    s = re.sub(r"[^a-z0-9.]+", "-", (name or "no-gpu").lower()).strip("-.")
    return s[:60] or "no-gpu"


def parsed(data):
    """A JSON object from bytes, or {} when it is not one."""
    try:
        obj = json.loads(data)
    except ValueError:
        return {}
    return obj if isinstance(obj, dict) else {}


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def cut_log(path):
    """The log's last LOG_LINES lines, each at most LOG_LINE_CHARS characters."""
    with open(path, "rb") as f:
        lines = f.read().decode("utf-8", "replace").splitlines()
    kept = [ln if len(ln) <= LOG_LINE_CHARS else ln[:LOG_LINE_CHARS] + " [cut]" for ln in lines[-LOG_LINES:]]
    head = [f"[the first {len(lines) - LOG_LINES} lines of {len(lines)} are cut]"] if len(lines) > LOG_LINES else []
    return ("\n".join(head + kept) + "\n").encode()


def steps_of(work):
    """(phase, name) of the lease's steps in priority order, as
    tools/gpu_session.sh wrote them into WORK/steps ("name phase limit what")."""
    try:
        with open(os.path.join(work, "steps")) as f:
            return [(int(w[1]), w[0]) for w in (ln.split() for ln in f) if len(w) >= 3 and w[1].isdigit()]
    except OSError:
        return []


def gathered(work, slug):
    """(part, archive path, bytes) for every file the steps left, in the
    order each part keeps them when its budget runs short."""
    m = f"tests/gpu/measured/{slug}"
    files = []

    def add(part, dest, path=None, data=None):
        if data is None:
            if not os.path.isfile(path):
                return
            with open(path, "rb") as f:
                data = f.read()
        files.append((part, dest, data))

    rec = os.path.join(work, "record", "recorded")
    for path in sorted(glob.glob(os.path.join(rec, "*.json"))):
        if os.path.basename(path) != "index.json":
            add("recordings", "web/recorded/" + os.path.basename(path), path)
    for path in sorted(glob.glob(os.path.join(work, "kit", "recorded-kit", "*.json"))):
        add("recordings", f"{m}/recorded-kit/" + os.path.basename(path), path)
    add("tables", f"{m}/device.json", os.path.join(work, "device.json"))
    for step, names in (("runs", ("calibrate.json", "calibrated.json", "calibrate.txt")),
                        ("kit", ("compare.json", "compare.txt", "kit.json", "kit_compare.json", "kit_compare.txt")),
                        ("cold", ("cold.json",)), ("claims", ("claims.tap",))):
        for name in names:
            add("tables", f"{m}/{name}", os.path.join(work, step, name))
    for path in sorted(glob.glob(os.path.join(work, "plan", "*.json"))):
        add("tables", f"{m}/plan/" + os.path.basename(path), path)
    for path in sorted(glob.glob(os.path.join(work, "traces", "*.json"))):
        add("tables", f"{m}/doctor/" + os.path.basename(path), path)
    for name in ("train-warm.json.gz", "train-cold.json.gz"):
        add("traces", f"tests/doctor/gpu/{slug}-{name}", os.path.join(work, "traces", name))
    kit_trace = os.path.join(work, "kit", "kit.trace.json")
    if os.path.isfile(kit_trace):
        with open(kit_trace, "rb") as f:
            add("traces", f"tests/doctor/gpu/{slug}-kit-profile.json.gz", data=gzip.compress(f.read(), mtime=0))
    errors = read_json(os.path.join(work, "errors", "errors.json"))
    if isinstance(errors, dict) and isinstance(errors.get("cases"), list):
        cases = []
        for case in errors["cases"]:
            src = os.path.join(work, "errors", str(case.get("file")))
            if not re.fullmatch(r"[a-z0-9-]+\.txt", str(case.get("file"))) or not os.path.isfile(src):
                continue
            case = dict(case, id=f"{slug}-{case['id']}", file=f"gpu/{slug}-{case['file']}")
            add("errors", f"tests/explain/gpu/{slug}-{os.path.basename(src)}", src)
            cases.append(case)
        add("errors", f"tests/explain/gpu/{slug}.json",
            data=(json.dumps(dict(errors, cases=cases), indent=1) + "\n").encode())
    for _, step in steps_of(work):
        log = os.path.join(work, step, "log")
        if os.path.isfile(log) and os.path.getsize(log):
            add("logs", f"{m}/logs/{step}.log", data=cut_log(log))
    return files


def step_lines(work):
    """One line per step that ran (and its details, indented)."""
    lines = []
    for phase, step in steps_of(work):
        d = os.path.join(work, step)
        try:
            with open(os.path.join(d, "rc")) as f:
                rc, secs, limit = (int(x) for x in f.read().split())
        except (OSError, ValueError):
            continue
        said = []
        if os.path.isfile(os.path.join(d, "status")):
            with open(os.path.join(d, "status"), errors="replace") as f:
                said = [ln.rstrip() for ln in f if ln.strip()]
        state = ("ok" if rc == 0 else "SKIPPED" if rc == 77 else "CUT" if rc in (124, 137) else f"FAILED (exit {rc})")
        head = said[0] if said else ""
        if rc in (124, 137):
            tap = ""
            if os.path.isfile(os.path.join(d, "log")):
                with open(os.path.join(d, "log"), errors="replace") as f:
                    log = f.read()
                n_ok = len(re.findall(r"^ok ", log, re.M))
                n_bad = len(re.findall(r"^not ok ", log, re.M))
                tap = f"; its log so far: {n_ok} ok, {n_bad} not ok" if n_ok + n_bad else ""
            head = f"cut at its limit of {limit} s{tap}" + (f"; it had said: {head}" if head else "")
        lines.append(f"  {phase} {step:9s} {state:9s} {secs:4d} s of {limit:<4d} {head}")
        lines += [f"      {ln}" for ln in said[1:8]]
    return lines


def pack(work, out):
    device = read_json(os.path.join(work, "device.json")) or {}
    slug = slug_of(device)
    files = gathered(work, slug)
    used = {p: 0 for p in BUDGETS}
    count = {p: 0 for p in BUDGETS}
    kept, left = [], []
    for part, dest, data in files:
        over = part == "traces" and len(data) > TRACE_MAX
        if over or used[part] + len(data) > BUDGETS[part]:
            left.append(f"  {dest} ({len(data) / MIB:.1f} MiB): over "
                        + (f"the {TRACE_MAX // MIB} MiB of one trace" if over else
                           f"what {part} had left of its {BUDGETS[part] / MIB:g} MiB"))
            continue
        used[part] += len(data)
        count[part] += 1
        kept.append((dest, data))
    recorded = {d[len("web/recorded/"):-5]: parsed(data) for d, data in kept if d.startswith("web/recorded/")}
    if recorded:
        kept.append(("web/recorded/index.json", json.dumps(index_of(recorded)).encode()))

    gpu = ((device.get("runtime") or {}).get("devices") or [{}])[0] or {}
    started = read_json(os.path.join(work, "started.json")) or {}
    head = [f"gpulab GPU lease on {gpu.get('name') or 'no usable GPU'}"
            f" (driver {(device.get('driver') or {}).get('driver_version') or '-'},"
            f" CUDA runtime {(device.get('runtime') or {}).get('runtime_version') or '-'}),"
            f" {started.get('date', '-')}, bundle of commit {started.get('commit', 'unknown')}",
            f"verdict: {(device.get('verdict') or {}).get('summary', 'no device check')}"]
    if started.get("libraries"):
        head.append(f"libraries: {started['libraries']}")
    body = ["steps, in priority order (phase, step, state, time of its limit):"] + step_lines(work)
    tail = [f"parts (bytes as stored, of each part's budget): "
            + ", ".join(f"{p} {used[p] / 1024:.0f} KiB in {count[p]} files of {BUDGETS[p] / MIB:g} MiB" for p in BUDGETS)]
    if left:
        tail += ["left out:"] + left
    tail.append(f"unpack here with: tools/gpu_session.sh unpack {ARCHIVE}")

    def summary(size):
        return "\n".join(head + body + tail + [f"archive {ARCHIVE}: {size / MIB:.2f} MiB of {ARCHIVE_MAX // MIB} MiB"]) + "\n"

    def tar_bytes(text):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz", compresslevel=6) as tar:
            for dest, data in kept + [(f"tests/gpu/measured/{slug}/summary.txt", text.encode())]:
                info = tarfile.TarInfo(dest)
                info.size, info.mtime, info.mode = len(data), int(time.time()), 0o644
                tar.addfile(info, io.BytesIO(data))
        return buf.getvalue()

    blob = tar_bytes(summary(0))
    text = summary(len(blob))
    blob = tar_bytes(text)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, ARCHIVE), "wb") as f:
        f.write(blob)
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(text)
    sys.stdout.write(text)
    if len(blob) > ARCHIVE_MAX:
        print(f"lease: the archive is {len(blob)} bytes, over {ARCHIVE_MAX}", file=sys.stderr)
        return 1
    return 0


EXPLAIN_CASES = re.compile(r"^tests/explain/gpu/[A-Za-z0-9._-]+\.json$")


def keep_labels(repo, name, data, incoming):
    """A lease's GPU.json for explain's corpus with what a person wrote
    kept: the lease leaves each case's facts and diagnosis empty
    (tests/explain/README.md), so a case already in the repository with the
    same id and the same message text (incoming: the archive's texts by
    path) keeps its facts and diagnosis. Returns (data, cases kept)."""
    old, new = read_json(os.path.join(repo, name)), None
    try:
        new = json.loads(data)
    except ValueError:
        pass
    if not isinstance(old, dict) or not isinstance(new, dict) or not isinstance(new.get("cases"), list):
        return data, 0
    labelled = {c.get("id"): c for c in old.get("cases") or [] if isinstance(c, dict) and c.get("diagnosis")}
    kept = 0
    for case in new["cases"]:
        was = labelled.get(case.get("id")) if isinstance(case, dict) and not case.get("diagnosis") else None
        text = f"tests/explain/{case.get('file')}" if was else None
        try:
            with open(os.path.join(repo, text), "rb") as f:
                same = was and was.get("file") == case.get("file") and incoming.get(text) == f.read()
        except (OSError, TypeError):
            same = False
        if same:
            case["facts"], case["diagnosis"] = was.get("facts", {}), was["diagnosis"]
            kept += 1
    if kept == len(new["cases"]) and old.get("note"):
        new["note"] = old["note"]
    return (json.dumps(new, indent=1, ensure_ascii=False) + "\n").encode(), kept


def unpack(archive, repo):
    """Checks every member first (a regular file at one of PLACES, the
    whole at most UNPACK_MAX), then writes them; nothing is written from an
    archive that fails a check. web/recorded/index.json is then rebuilt
    from the recordings there."""
    if os.path.getsize(archive) > ARCHIVE_MAX:
        print(f"unpack: {archive} is {os.path.getsize(archive)} bytes, over the lease's {ARCHIVE_MAX}", file=sys.stderr)
        return 1
    try:
        with tarfile.open(archive, mode="r:gz") as tar:
            members = tar.getmembers()
            total = 0
            for mem in members:
                name = mem.name
                if not mem.isfile() or not PLACES.match(name) or ".." in name.split("/"):
                    print(f"unpack: refused: {name!r} is not a file at one of the lease's places", file=sys.stderr)
                    return 1
                total += mem.size
                if total > UNPACK_MAX:
                    print(f"unpack: refused: the files add up to more than {UNPACK_MAX} bytes", file=sys.stderr)
                    return 1
            # explain's texts as the archive has them, to keep a person's labels of unchanged ones
            incoming = {mem.name: tar.extractfile(mem).read() for mem in members
                        if mem.name.startswith("tests/explain/gpu/") and mem.name.endswith(".txt")}
            labels = {}
            for mem in members:
                if EXPLAIN_CASES.match(mem.name):
                    labels[mem.name] = keep_labels(repo, mem.name, tar.extractfile(mem).read(), incoming)
            written = {}
            for mem in members:
                data = labels[mem.name][0] if mem.name in labels else tar.extractfile(mem).read()
                path = os.path.join(repo, mem.name)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(data)
                place = os.path.dirname(mem.name)
                written[place] = written.get(place, 0) + 1
    except (tarfile.TarError, OSError, EOFError) as e:
        print(f"unpack: {archive}: not a lease archive ({e.__class__.__name__}: {e})", file=sys.stderr)
        return 1
    if any(p == "web/recorded" for p in written):
        rec = os.path.join(repo, "web", "recorded")
        envs = {}
        for f in os.listdir(rec):
            if f.endswith(".json") and f != "index.json":
                envs[f[:-5]] = read_json(os.path.join(rec, f)) or {}
        write_index(os.path.join(rec, "index.json"), envs)
        print(f"unpack: web/recorded/index.json lists {len(envs)} recordings")
    for place, n in sorted(written.items()):
        print(f"unpack: {n:3d} files in {place}/")
    for name, (_, kept) in sorted(labels.items()):
        if kept:
            print(f"unpack: {name}: the facts and diagnosis of {kept} unchanged messages kept")
    return 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "pack":
        return pack(sys.argv[2], sys.argv[3])
    if len(sys.argv) == 4 and sys.argv[1] == "unpack":
        return unpack(sys.argv[2], sys.argv[3])
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
