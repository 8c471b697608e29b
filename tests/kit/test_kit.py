"""The measurement kit (kit/measure.py) without a GPU: its preflight on
environments from public reports (tests/kit/environments.json), each
finding pasted into `gpulab explain` (GPULAB_BIN) and reaching the same
diagnosis; and its GPU code run against a stand-in torch.cuda
(tests/kit/standin.py) that records every call: each timed sample comes
after a warm-up and ends in a synchronize or an event. The stand-in run's
file is written to GPULAB_KIT_OUT for the view check. Needs PyTorch
(/usr/bin/python3 on Debian): without it these tests fail, never skip."""
import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "kit"))
sys.path.insert(0, HERE)

import torch  # noqa: E402  (a missing torch fails here, loudly)

import measure  # noqa: E402
import standin  # noqa: E402

GPULAB = os.environ.get("GPULAB_BIN", os.path.join(ROOT, "build", "bin", "gpulab"))
with open(os.path.join(HERE, "environments.json")) as _fh:
    ENVS = json.load(_fh)["environments"]

# Regions the lessons time without a synchronize on purpose: the host's
# own cost (the launch returned, the work did not finish; what freeing a
# block costs the host while a kernel runs).
DELIBERATE_NOSYNC = ("timing host nosync", "graphs replay launch", "graphs eager launch", "allocator free while busy")
# The first run in the process, timed on purpose before any warm-up (the cold-start lesson).
DELIBERATE_COLD = ("timing cold",)

TINY = dict(measure.SIZES["quick"], timing_n=128, precision_n=256, precision_flop=1e8, transfer_bytes=1 << 20,
            graph_kernels=40, graph_sweep_max=4096, stream_chunk_mib=1, alloc_cycles=10, train_steps=20, train_reps=2,
            profile_batch=32, profile_hidden=64, profile_steps=5, profile_reps=2, memory_params_m=1)


def explain(text):
    r = subprocess.run([GPULAB, "explain", "-", "--json"], input=text, stdout=subprocess.PIPE,
                       universal_newlines=True, timeout=30)
    return json.loads(r.stdout)


class Preflight(unittest.TestCase):
    def test_every_report_gets_its_findings(self):
        for e in ENVS:
            with self.subTest(e["id"]):
                got = [fd["id"] for fd in measure.preflight(e["facts"])]
                self.assertEqual(got, e["expect"], e["source"])

    def test_the_device_follows_from_the_findings(self):
        for e in ENVS:
            if "device" not in e:
                continue
            with self.subTest(e["id"]):
                kind, why = measure.device_choice(e["facts"], measure.preflight(e["facts"]))
                self.assertEqual(kind, e["device"], e["source"])
                self.assertEqual(kind == "cpu", bool(why))

    def test_mps_times_with_events_only_from_pytorch_2_1(self):
        for e in ENVS:
            if "mps_events" not in e:
                continue
            fake = type("T", (), {"__version__": e["facts"]["torch"]})
            dev = measure.Device(fake, "mps", standin.StandInCuda(standin.Recorder()), None)
            self.assertEqual(dev.has_events, e["mps_events"], e["id"])

    def test_each_finding_pasted_into_explain_gets_the_same_diagnosis(self):
        for e in ENVS:
            for fd in measure.preflight(e["facts"]):
                with self.subTest(e["id"] + " " + fd["id"]):
                    ans = explain(measure.finding_text(fd))
                    self.assertEqual(len(ans["items"]), 1, ans)
                    self.assertEqual(ans["items"][0]["diagnosis"]["id"], fd["id"])
                    self.assertEqual(ans["items"][0]["diagnosis"]["title"], fd["title"])

    def test_real_messages_reach_the_new_setup_diagnoses(self):
        with open(os.path.join(HERE, "messages.json")) as fh:
            messages = json.load(fh)["messages"]
        for m in messages:
            with self.subTest(m["source"]):
                ans = explain(m["text"])
                self.assertEqual([i["diagnosis"]["id"] for i in ans["items"]], [m["diagnosis"]], m["source"])

    def test_the_kits_words_are_explains(self):
        table = {r["id"]: r for r in json.loads(subprocess.run([GPULAB, "explain", "--diagnoses"], check=True,
                                                               stdout=subprocess.PIPE, universal_newlines=True).stdout)}
        for i in measure.DIAGNOSIS_IDS:
            self.assertEqual(measure.DIAGNOSES[i]["text"], table[i]["text"], i)
            self.assertEqual(measure.DIAGNOSES[i]["steps"], table[i]["steps"], i)

    def test_decide_reaches_only_the_rows_the_kit_carries(self):
        facts = {"torch": "2.5.1", "cuda_build": "12.4", "cuda_available": False}
        for e in ENVS + [{"facts": facts}]:
            for diag, _, _ in measure.decide(e["facts"]):
                self.assertIn(diag, measure.DIAGNOSIS_IDS)

    def test_this_machines_cpu_wheel(self):
        f = measure.gather_facts(torch)
        self.assertIsNone(f["cuda_build"], "Debian's python3-torch is a CPU build")
        self.assertFalse(f["cuda_available"])
        ids = [fd["id"] for fd in measure.preflight(f)]
        kind, why = measure.device_choice(f, measure.preflight(f))
        self.assertEqual(kind, "cpu")
        self.assertIn("no GPU", why)
        self.assertEqual(ids, ["setup_no_driver"] if f.get("driver") else ["env_consistent"])

    def test_driver_tables(self):
        self.assertEqual(measure.driver_cuda("550.54.15"), "12.4")
        self.assertEqual(measure.driver_cuda("550.54.13"), "12.3")
        self.assertEqual(measure.driver_cuda("580.82.07"), "13.0")
        self.assertIsNone(measure.driver_cuda("400.1"))
        self.assertTrue(measure.driver_too_old("12.1", "470.82.01"))
        self.assertFalse(measure.driver_too_old("12.6", "550.54.15"))
        self.assertTrue(measure.arch_supported("sm_86", ["sm_80"]))
        self.assertFalse(measure.arch_supported("sm_75", ["sm_80", "sm_86"]))
        self.assertTrue(measure.arch_supported("sm_120", ["sm_90", "compute_90"]))
        self.assertFalse(measure.arch_supported("gfx1031", ["gfx1030", "gfx1100"]))
        self.assertTrue(measure.arch_supported("gfx90a:sramecc+:xnack-", ["gfx90a"]))
        self.assertAlmostEqual(measure.pcie_nominal_gbps(3, 16), 15.75, places=2)
        self.assertAlmostEqual(measure.pcie_nominal_gbps(4, 16), 31.51, places=2)


def standin_run():
    """Every experiment's GPU path against the stand-in: (recorder, envelopes, skipped, failed)."""
    rec = standin.Recorder()
    api = standin.StandInCuda(rec)
    dev = measure.Device(torch, "cuda", api, torch.device("cpu"), clock=rec.clock, hook=rec.hook)
    dev.can_pin = False  # page-locking needs a CUDA build
    dev.has_graphs = True
    facts = {"torch": torch.__version__, "cuda_build": "12.4", "cuda_available": True, "gpu": "stand-in GPU",
             "gpu_arch": "sm_75", "cc": "7.5", "memory_bytes": api.total, "sm_count": 40, "driver": "550.54.15",
             "pcie_link": (3, 16)}
    findings = measure.preflight(facts)
    out = os.environ.get("GPULAB_KIT_OUT")
    trace = os.path.join(out, "standin.trace.json") if out else None
    envs, skipped, failed = measure.run_all(torch, dev, facts, findings, TINY, trace_path=trace, say=lambda s: None)
    if out:
        doc = {"gpulab_measure": measure.KIT_VERSION, "provenance": {"device": {"kind": "cuda", "name": "stand-in GPU"},
                                                                      "torch": torch.__version__},
               "ran_on": "cuda", "results": envs, "skipped": skipped, "failed": failed}
        with open(os.path.join(out, "standin.json"), "w") as fh:
            json.dump(doc, fh)
    return rec, envs, skipped, failed


class PairedDifference(unittest.TestCase):
    def test_a_difference_above_the_noise_is_resolved(self):
        med, lo, hi = measure.paired_difference([20 + (i % 5) for i in range(15)])
        self.assertEqual(med, 22)
        self.assertGreater(lo, 0)
        self.assertLessEqual(hi, 24)

    def test_a_difference_inside_the_noise_is_not(self):
        # 15 pairs scattered around zero, as the H100's host-bound steps were.
        med, lo, hi = measure.paired_difference([(-1) ** i * (10 + i) for i in range(15)])
        self.assertLessEqual(lo, 0)
        self.assertGreaterEqual(hi, 0)

    def test_few_or_broken_pairs_take_their_whole_range(self):
        self.assertEqual(measure.paired_difference([3, 1, float("nan"), 2]), (2, 1, 3))
        self.assertEqual(measure.paired_difference([]), (0.0, 0.0, 0.0))


class StandIn(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rec, cls.envs, cls.skipped, cls.failed = standin_run()

    def test_every_experiment_ran(self):
        names = subprocess.run([GPULAB, "experiments", "--live"], check=True, stdout=subprocess.PIPE,
                               universal_newlines=True).stdout.split()
        self.assertEqual(self.failed, [])
        self.assertEqual(self.skipped, [])
        self.assertEqual(sorted(e["experiment"] for e in self.envs), sorted(names),
                         "every experiment a GPU answers (gpulab experiments --live) has its PyTorch counterpart in the kit")

    def test_a_reads_cost_is_a_resolved_figure_or_says_why_not(self):
        # The H100 gave -33.45 us from a difference of two noisy medians: never a negative cost again.
        env = next(e for e in self.envs if e["experiment"] == "train_step")
        lo, hi = env["details"]["cost_per_read_interval_us"]
        self.assertLessEqual(lo, hi)
        if "cost_per_read_us" in env["metrics"]:
            self.assertGreater(lo, 0)
            self.assertTrue(lo <= env["metrics"]["cost_per_read_us"] <= hi)
        else:
            self.assertIn("not resolved", env["details"]["not_measured"]["cost_per_read_us"])

    def test_every_envelope_says_pytorch(self):
        for e in self.envs:
            self.assertEqual(e["backend"], "pytorch")
            self.assertEqual(e["schema"], 1)

    def test_every_sample_comes_after_a_warm_up(self):
        warmed, samples = set(), 0
        for entry in self.rec.log:
            if entry[0] == "mark" and entry[1] == "warmed":
                warmed.add(entry[2])
            elif entry[0] == "mark" and entry[1] in ("sample", "nosync"):
                samples += 1
                self.assertIn(entry[2], warmed, "a timed sample with no warm-up before it")
            elif entry[0] == "mark" and entry[1] == "cold":
                self.assertTrue(entry[2].startswith(DELIBERATE_COLD), "a cold sample that is not the lesson's: %s" % entry[2])
        self.assertGreater(samples, 50)

    def test_every_timed_sample_ends_in_a_synchronize_or_an_event(self):
        log = self.rec.log
        marks = [i for i, e in enumerate(log) if e[0] == "mark"] + [len(log)]
        checked = 0
        for a, b in zip(marks, marks[1:]):
            what, label = log[a][1], log[a][2]
            part = log[a + 1:b]
            if what == "nosync":
                self.assertTrue(label.startswith(DELIBERATE_NOSYNC), "an unsynchronized region: %s" % label)
                continue
            if what not in ("sample", "cold"):
                continue
            checked += 1
            ok = False
            for i in range(a + 1, b):
                e = log[i]
                if e[0] == "elapsed":  # the end event was waited for before reading it
                    rec = max(j for j in range(i) if log[j] == ("record", e[2]))
                    self.assertTrue(any(x in (("event_sync", e[2]), ("sync",)) for x in log[rec + 1:i]), label)
                    ok = True
            clocks = [i for i, e in enumerate(part) if e == ("clock",)]
            if len(clocks) >= 2:
                last = clocks[-1]
                self.assertEqual(part[last - 1], ("sync",), "%s: the host clock stopped before a synchronize" % label)
                ok = True
            self.assertTrue(ok, "%s: a sample timed by neither events nor a synchronized clock" % label)
        self.assertGreater(checked, 50)

    def test_a_missing_synchronize_is_caught(self):
        # The check above, on a log where the synchronize was forgotten, must fail.
        rec = standin.Recorder()
        api = standin.StandInCuda(rec)
        dev = measure.Device(torch, "cuda", api, torch.device("cpu"), clock=rec.clock, hook=rec.hook)
        dev.sync = lambda: None  # the mistake
        measure.time_host(dev, lambda: None, 2, 1, "forgot")
        part = rec.log[[i for i, e in enumerate(rec.log) if e == ("mark", "sample", "forgot")][0] + 1:]
        clocks = [i for i, e in enumerate(part) if e == ("clock",)]
        self.assertNotEqual(part[clocks[1] - 1], ("sync",))


if __name__ == "__main__":
    unittest.main()
