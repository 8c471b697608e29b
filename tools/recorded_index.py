"""The index of a folder of recordings (web/recorded/index.json): the names
the offline page offers, and for each the few fields its label is made of
("recorded on DEVICE, DATE"; a kit run's PyTorch and platform), so a first
visit fetches this one small file and a recording only when it is replayed.
Used by tools/record_runs.py, tools/record_kit.py and tools/lease_archive.py."""
import json

LABEL_FIELDS = {"recorded": ("device", "date"), "measured_with": ("torch", "platform", "date")}


def source_of(env):
    """What the page's label of a recording needs, from its envelope."""
    out = {}
    for key, fields in LABEL_FIELDS.items():
        part = env.get(key)
        if isinstance(part, dict):
            out[key] = {f: part[f] for f in fields if isinstance(part.get(f), str)}
    return out


def index_of(envs):
    """envs: {name: envelope}. The index, names sorted; the recordings of one
    lease share one "source" (a few hundred bytes fewer on a first visit),
    else each has its own in "sources"."""
    names = sorted(envs)
    sources = {n: source_of(envs[n]) for n in names}
    if names and all(sources[n] == sources[names[0]] for n in names):
        return {"recorded": names, "source": sources[names[0]]}
    return {"recorded": names, "sources": sources}


def write_index(path, envs):
    with open(path, "w") as f:
        json.dump(index_of(envs), f, separators=(",", ":"))
