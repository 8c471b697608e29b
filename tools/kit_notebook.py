#!/usr/bin/env python3
"""Builds the measurement kit's notebook (measure.ipynb, for Colab and
Kaggle) from the kit itself (kit/measure.py): a short note, then the
script cut into cells at its "# ---- " section lines and before each
experiment (def exp_…), byte for byte, then
one cell that runs it. The notebook is the script: joined, its code cells
but the last are measure.py exactly (tests/tools/kit.sh checks it).

    tools/kit_notebook.py kit/measure.py OUT.ipynb
"""
import json
import sys

NOTE = """# gpulab measurement kit

Measures this machine's GPU with PyTorch the way gpulab's lessons teach (warm-up, events or a synchronize,
medians of several samples) and writes `gpulab-run.json`, which you open on the gpulab page or give to
`gpulab compare`. On Colab: *Runtime > Change runtime type > T4 GPU*; on Kaggle: *Settings > Accelerator > GPU T4*.
Then *Run all*. The first cells are the kit itself (`measure.py`, unchanged); the last one runs it:
about 5 minutes on a T4. Download `gpulab-run.json` (and `gpulab-run.trace.json`, for gpulab doctor) from the
file browser when it is done. Nothing is sent anywhere."""

RUN = 'main(["--out", "gpulab-run.json"])\n'


def lines(text):
    return text.splitlines(keepends=True)


def cells(script):
    parts, cur = [], []
    for line in script.splitlines(keepends=True):
        if (line.startswith("# ---- ") or line.startswith("def exp_")) and cur:
            parts.append("".join(cur))
            cur = []
        cur.append(line)
    if cur:
        parts.append("".join(cur))
    return parts


def notebook(script):
    nb_cells = [{"cell_type": "markdown", "metadata": {}, "source": lines(NOTE)}]
    for part in cells(script):
        nb_cells.append({"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                         "source": lines(part)})
    nb_cells.append({"cell_type": "code", "execution_count": None, "metadata": {"gpulab": "run"}, "outputs": [],
                     "source": lines(RUN)})
    return {"cells": nb_cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                           "name": "python3"},
                                            "language_info": {"name": "python"}, "accelerator": "GPU"},
            "nbformat": 4, "nbformat_minor": 5}


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as fh:
        script = fh.read()
    with open(sys.argv[2], "w", encoding="utf-8") as fh:
        json.dump(notebook(script), fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
