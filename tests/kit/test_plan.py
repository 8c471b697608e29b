"""The measurement kit's --plan mode (kit/measure.py) without a GPU: small
configurations planned by `gpulab plan --json --backend cpu` (GPULAB_BIN),
built and trained on this CPU, whose tensor bytes must be the plan's
components within 5 % (and a plan with a term dropped must be caught); the
file main() writes, which `gpulab compare` shows beside the plan; the
CUDA path against the stand-in torch.cuda (tests/kit/standin.py): each
counter beside the plan's, the step timed by events; an out-of-memory at
the first step reported as a result, as predicted or not; every bad plan
file refused with its code, exit status 1 and no traceback. Needs PyTorch
(/usr/bin/python3 on Debian): without it these tests fail, never skip."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "kit"))
sys.path.insert(0, HERE)

import torch  # noqa: E402  (a missing torch fails here, loudly)

import measure  # noqa: E402
import standin  # noqa: E402

GPULAB = os.environ.get("GPULAB_BIN", os.path.join(ROOT, "build", "bin", "gpulab"))
KIT = os.path.join(ROOT, "kit", "measure.py")
TINY = ["--seq", "32", "--batch", "2", "--vocab", "500", "--backend", "cpu", "--profile", "t4"]
CONFIGS = {
    "gpt2 fp32": ["--arch", "gpt2", "--layers", "2", "--hidden", "64", "--heads", "4", "--ffn", "256",
                  "--max-positions", "64", "--dropout", "0.1"] + TINY,
    "llama gqa bf16 full checkpointing": ["--arch", "llama", "--layers", "2", "--hidden", "64", "--heads", "4",
                                          "--kv-heads", "2", "--ffn", "176", "--max-positions", "32", "--precision",
                                          "bf16", "--checkpointing", "full"] + TINY,
    "llama lora amp-bf16 selective sgd": ["--arch", "llama", "--layers", "2", "--hidden", "64", "--heads", "4",
                                          "--kv-heads", "1", "--ffn", "176", "--max-positions", "32", "--precision",
                                          "amp-bf16", "--lora-rank", "4", "--checkpointing", "selective",
                                          "--optimizer", "sgd"] + TINY,
}
TENSORS = ("weights", "gradients", "optimizer_state", "activations")
# A real out-of-memory message, kept as found (tests/explain/cases/011-oom-new-too-much-24g.txt).
with open(os.path.join(ROOT, "tests", "explain", "cases", "011-oom-new-too-much-24g.txt")) as _fh:
    OOM_MESSAGE = _fh.readline().split(": ", 1)[1].strip()


def plan(args):
    r = subprocess.run([GPULAB, "plan", "--json"] + args, stdout=subprocess.PIPE, universal_newlines=True,
                       timeout=60, check=True)
    return json.loads(r.stdout)


def cpu():
    return measure.Device(torch, "cpu", None, torch.device("cpu"))


def counters(run):
    return {c["id"]: c for c in run["counters"]}


class OnTheCPU(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.set_num_threads(1)
        cls.plans = {name: plan(args) for name, args in CONFIGS.items()}
        cls.runs = {name: measure.plan_measure(torch, cpu(), doc, steps=1, seconds=30, say=lambda s: None)
                    for name, doc in cls.plans.items()}

    def test_tensor_bytes_are_the_plans_components_within_5_percent(self):
        for name, run in self.runs.items():
            got = counters(run)
            for cid in TENSORS:
                with self.subTest(config=name, counter=cid):
                    c = got[cid]
                    self.assertGreater(c["measured"], 0)
                    self.assertTrue(0.95 <= c["ratio"] <= 1.05, c)
                    self.assertTrue(c["in_band"], c)

    def test_a_plan_with_a_term_dropped_is_caught(self):
        doc = json.loads(json.dumps(self.plans["gpt2 fp32"]))
        act = next(c for c in doc["memory"]["components"] if c["id"] == "activations")
        act["bytes"] -= next(s["bytes"] for s in act["sources"] if s["id"] == "dropout_masks")
        c = counters(measure.plan_measure(torch, cpu(), doc, steps=1, seconds=30, say=lambda s: None))["activations"]
        self.assertFalse(c["in_band"], c)
        self.assertGreater(c["ratio"], 1.05)

    def test_the_cpu_says_what_it_cannot_measure(self):
        run = self.runs["gpt2 fp32"]
        self.assertEqual(sorted(u["id"] for u in run["unavailable"]), ["allocated", "device", "reserved"])
        step = counters(run)["step_ms"]
        self.assertIn("CPU step", step["what"])
        self.assertIsNone(step["in_band"])
        self.assertIsNone(step["ratio"])
        self.assertEqual(run["steps"]["measured"], 1)
        self.assertIsNone(run["oom"])


class TheFile(unittest.TestCase):
    def test_the_file_is_the_kits_and_gpulab_compare_shows_each_counter_beside_the_plan(self):
        d = tempfile.mkdtemp()
        path, out = os.path.join(d, "gpt2.plan.json"), os.path.join(d, "gpt2.run.json")
        with open(path, "w") as fh:
            json.dump(plan(CONFIGS["gpt2 fp32"]), fh)
        self.assertEqual(measure.main(["--plan", path, "--out", out, "--plan-steps", "1"]), 0)
        with open(out) as fh:
            doc = json.load(fh)
        self.assertEqual(doc["gpulab_measure"], measure.KIT_VERSION)
        self.assertEqual((doc["results"], doc["failed"], doc["ran_on"]), ([], [], "cpu"))
        r = subprocess.run([GPULAB, "compare", out, "--json"], stdout=subprocess.PIPE, universal_newlines=True,
                           timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout)
        shown = {c["id"]: c for c in json.loads(r.stdout)["plan"]["counters"]}
        self.assertEqual(sorted(shown), sorted(TENSORS + ("step_ms",)))
        self.assertTrue(all(shown[c]["in_band"] for c in TENSORS), shown)
        self.assertIsNone(shown["step_ms"]["ratio"])  # a CPU step is not the plan's GPU step


class OnAStandInGPU(unittest.TestCase):
    def run_standin(self, doc, fault=None, cached=0):
        rec = standin.Recorder()
        api = standin.StandInCuda(rec)
        api.cached = cached
        api.is_bf16_supported = lambda: True
        dev = measure.Device(torch, "cuda", api, torch.device("cpu"), clock=rec.clock, hook=rec.hook)
        self.assertIsNone(measure.plan_refusal(torch, dev, doc["settings"]))
        if fault:
            real = measure.PlanRun.step
            measure.PlanRun.step = fault
            self.addCleanup(setattr, measure.PlanRun, "step", real)
        return rec, measure.plan_measure(torch, dev, doc, steps=2, seconds=30, say=lambda s: None)

    def test_each_counter_beside_the_plans_and_the_step_timed_by_events(self):
        doc = plan(CONFIGS["gpt2 fp32"][:-4] + ["--profile", "t4"])
        rec, run = self.run_standin(doc)
        got = counters(run)
        mem = doc["memory"]
        for cid in ("allocated", "reserved", "device"):
            self.assertEqual(got[cid]["predicted"], mem[cid + "_bytes"])
            self.assertEqual(got[cid]["band"], mem[cid + "_band"])
        self.assertEqual(got["device"]["measured"], 300 << 20)  # the stand-in's mem_get_info: total - free
        self.assertEqual(run["baseline_device_bytes"], 300 << 20)
        self.assertEqual(got["step_ms"]["predicted"], doc["step_ms"])
        self.assertEqual(run["unavailable"], [])
        # two measured steps, each between two recorded events, read after the second one's synchronize
        timed = [e for e in rec.log if e[0] in ("record", "event_sync", "elapsed")]
        self.assertEqual([e[0] for e in timed], ["record", "record", "event_sync", "elapsed"] * 2)

    def test_a_previous_plans_cache_is_given_back_before_the_baseline(self):
        # the H100 lease measured four plans in one process: the first one's 13 GiB of cached segments were the
        # next ones' reserved and device figures
        doc = plan(CONFIGS["gpt2 fp32"][:-4] + ["--profile", "t4"])
        _, run = self.run_standin(doc, cached=13 << 30)
        self.assertEqual(run["baseline_device_bytes"], 300 << 20)
        self.assertEqual(run["baseline_reserved_bytes"], 0)
        self.assertEqual(counters(run)["device"]["measured"], 300 << 20)

    def test_out_of_memory_at_the_first_step_is_a_result(self):
        doc = plan(["--preset", "llama-3.2-1b", "--seq", "4096", "--batch", "64", "--profile", "t4"])
        self.assertFalse(doc["fits"])
        small = plan(CONFIGS["gpt2 fp32"][:-4] + ["--profile", "t4"])
        oom = getattr(torch.cuda, "OutOfMemoryError", RuntimeError)
        for errors, d, predicted in ((oom, doc, True), (RuntimeError, small, False)):
            def step(run, e=errors):
                raise e(OOM_MESSAGE)
            with self.subTest(error=errors.__name__):
                d = json.loads(json.dumps(d))
                d["settings"].update(layers=1, hidden=64, heads=4, kv_heads=1, ffn=128, vocab=100, seq=8,
                                     batch=1)  # what is built before the fault: small, whatever the plan's size
                _, run = self.run_standin(d, fault=step)
                self.assertEqual(run["oom"]["step"], 1)
                self.assertEqual(run["oom"]["phase"], "warm-up step 1")
                self.assertIs(run["oom"]["predicted"], predicted)
                self.assertIn("Tried to allocate 22.00 MiB", run["oom"]["message"])
                self.assertIn("as predicted" if predicted else "not predicted", run["verdict"])
                self.assertEqual(run["counters"], [])

    def test_another_error_is_not_taken_for_out_of_memory(self):
        self.assertFalse(measure.is_oom(RuntimeError("mat1 and mat2 shapes cannot be multiplied")))
        self.assertTrue(measure.is_oom(RuntimeError(OOM_MESSAGE)))
        self.assertTrue(measure.is_oom(RuntimeError("MPS backend out of memory (MPS allocated: 1.2 GB)")))


class BadPlanFiles(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        cls.good = plan(CONFIGS["gpt2 fp32"])

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as fh:
            fh.write(text)
        return path

    def variant(self, name, change):
        d = json.loads(json.dumps(self.good))
        change(d)
        return self.write(name, json.dumps(d))

    def test_each_bad_file_gets_its_code_and_no_traceback(self):
        error = subprocess.run([GPULAB, "plan", "--json", "--layers", "0"], stdout=subprocess.PIPE,
                               universal_newlines=True).stdout
        cases = [
            ("missing", os.path.join(self.dir, "absent.json"), "plan_unreadable"),
            ("not JSON", self.write("cut.json", json.dumps(self.good)[:200]), "plan_not_json"),
            ("not a plan", self.write("run.json", '{"gpulab_measure": "1.0", "results": []}'), "plan_invalid"),
            ("gpulab plan's refusal", self.write("refused.json", error), "plan_invalid"),
            ("a newer plan", self.variant("new.json", lambda d: d.update(plan=2)), "plan_too_new"),
            ("absurd layers", self.variant("big.json", lambda d: d["settings"].update(layers=10 ** 6)), "plan_invalid"),
            ("absurd model", self.variant("huge.json", lambda d: d["model"].update(params=1e12)),
             "plan_out_of_bounds"),
            ("a wrong type", self.variant("type.json", lambda d: d["memory"].update(allocated_bytes="1 GB")),
             "plan_invalid"),
            ("a band that is not one", self.variant("band.json", lambda d: d.update(step_ms_band=[1])), "plan_invalid"),
        ]
        for what, path, code in cases:
            with self.subTest(case=what):
                r = subprocess.run([sys.executable, KIT, "--plan", path, "--out", os.path.join(self.dir, "o.json")],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn("error %s:" % code, r.stderr)
                self.assertNotIn("Traceback", r.stderr)
                self.assertFalse(os.path.exists(os.path.join(self.dir, "o.json")))

    def test_a_plan_this_machine_cannot_hold_or_build_stops_before_it_starts(self):
        import contextlib
        import io
        real = measure._available_ram
        self.addCleanup(setattr, measure, "_available_ram", real)
        measure._available_ram = lambda: 1 << 20  # 1 MiB free: the plan's tensors would not fit
        out = os.path.join(self.dir, "held.json")
        for change, code in (({}, "plan_out_of_bounds"), ({"layout": "llmc"}, "plan_unsupported")):
            d = json.loads(json.dumps(self.good))
            d["settings"].update(change)
            path = self.write("stop-%s.json" % code, json.dumps(d))
            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                rc = measure.main(["--plan", path, "--out", out])
            with self.subTest(code=code):
                self.assertEqual(rc, 1)
                self.assertIn("error %s:" % code, err.getvalue())
                self.assertFalse(os.path.exists(out))

    def test_a_configuration_the_kit_cannot_build_here_is_refused_naming_the_setting(self):
        for change, words in (({"layout": "llmc"}, "layout llmc"), ({"loss": "fused"}, "loss fused"),
                              ({"precision": "amp-fp16"}, "precision amp-fp16"),
                              ({"optimizer": "adam8bit"}, "optimizer adam8bit"),
                              ({"optimizer_impl": "fused"}, "optimizer_impl fused")):
            s = dict(self.good["settings"], **change)
            with self.subTest(setting=words):
                why = measure.plan_refusal(torch, cpu(), s)
                self.assertIsNotNone(why)
                self.assertTrue(why.startswith(words), why)
        s = dict(self.good["settings"], attention="sdpa")
        why = measure.plan_refusal(torch, cpu(), s)
        has = hasattr(torch.nn.functional, "scaled_dot_product_attention")
        self.assertEqual(why is None, has, why)


if __name__ == "__main__":
    unittest.main()
