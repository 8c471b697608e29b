#!/usr/bin/env python3
"""Writes the measurement kit's copy of explain's set-up diagnoses
(kit/measure.py, between "# BEGIN DIAGNOSES" and "# END DIAGNOSES") from
`gpulab explain --diagnoses`, so the kit's findings say what `gpulab
explain` says: one text, in lab/explain/explain_diag.c. Only the rows the kit's
preflight can reach (measure.DIAGNOSIS_IDS) are copied.

    tools/kit_diagnoses.py build/bin/gpulab            rewrite the block
    tools/kit_diagnoses.py build/bin/gpulab --check    exit 1 when it differs
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KIT = os.path.join(ROOT, "kit", "measure.py")
BEGIN, END = "# BEGIN DIAGNOSES\n", "# END DIAGNOSES\n"


def block(gpulab):
    sys.path.insert(0, os.path.dirname(KIT))
    import measure  # the kit itself: its DIAGNOSIS_IDS
    table = json.loads(subprocess.run([gpulab, "explain", "--diagnoses"], check=True, stdout=subprocess.PIPE,
                                      universal_newlines=True).stdout)
    rows = {r["id"]: {k: r[k] for k in ("title", "text", "steps", "lesson", "section")} for r in table}
    missing = [i for i in measure.DIAGNOSIS_IDS if i not in rows]
    if missing:
        raise SystemExit("kit_diagnoses: explain has no row for %s (lab/explain/explain_diag.c)" % ", ".join(missing))
    chosen = {i: rows[i] for i in measure.DIAGNOSIS_IDS}
    return "DIAGNOSES = " + json.dumps(chosen, indent=1, ensure_ascii=False) + "\n"


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    want = block(sys.argv[1])
    text = open(KIT, encoding="utf-8").read()
    head, rest = text.split(BEGIN, 1)
    have, tail = rest.split(END, 1)
    if "--check" in sys.argv[2:]:
        if have != want:
            print("kit/measure.py's DIAGNOSES differ from lab/explain/explain_diag.c: run tools/kit_diagnoses.py %s"
                  % sys.argv[1], file=sys.stderr)
            return 1
        return 0
    with open(KIT, "w", encoding="utf-8") as fh:
        fh.write(head + BEGIN + want + END + tail)
    return 0


if __name__ == "__main__":
    sys.exit(main())
