// The planner page's cost in the browser, beside a peer measured in the
// same run: the simulated memory experiment on the workbench (#lab/memory),
// both run by the simulation module's Web Worker and drawn by the UI
// module. One plan of #plan is lab_plan (the largest micro-batch searched,
// every lever planned) plus the micro-batch sweep (wasm/sim/plan_run.c);
// one memory run is its simulator. Each is timed in the page, from the
// action to its answer drawn (a MutationObserver, nothing polling), ROUNDS
// times interleaved (plan, memory, plan …) after one warm-up each, so a
// machine that other work slows slows both alike; medians, interquartile
// ranges and the ratio of the medians. Usage: node bench/plan_page.mjs
import { launchBrowser, startServer } from '../tests/e2e/lib.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 9);
const quart = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  const i = (s.length - 1) * q, lo = Math.floor(i);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (i - lo);
};

// ms from the action to the answer drawn: for #plan a new #plan-verdict,
// for the experiment its output box no longer busy with a chart in it.
const timeIt = (page, kind, round) => page.evaluate(([k, r]) => new Promise((done) => {
  const t0 = performance.now();
  const ready = k === 'plan'
    ? () => document.getElementById('plan-verdict') && document.getElementById('plan-out').getAttribute('aria-busy') === 'false'
    : () => { const o = document.getElementById('exp-memory-out'); return o && o.getAttribute('aria-busy') === 'false' && o.querySelector('figure'); };
  if (k !== 'plan') document.getElementById('exp-memory-out').innerHTML = ''; // a run kept from before is not its answer
  const obs = new MutationObserver(() => { if (ready()) { obs.disconnect(); done(performance.now() - t0); } });
  obs.observe(document.body, { subtree: true, childList: true, attributes: true });
  if (k === 'plan') location.hash = `#plan?preset=gpt2-124m&seq=1024&batch=${8 + (r % 2)}&device=t4`;
  else document.getElementById('exp-memory-run').click();
}), [kind, round]);

const server = await startServer();
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(60000);
  await page.goto(`${server.url}/#lab/memory`);
  await page.locator('#exp-memory-run').waitFor();
  const got = { plan: [], memory: [] };
  for (let r = -1; r < ROUNDS; r++) {
    for (const kind of ['plan', 'memory']) {
      if (kind === 'memory') {
        await page.evaluate(() => { location.hash = '#lab/memory'; });
        await page.locator('#exp-memory-run').waitFor();
      }
      const ms = await timeIt(page, kind, r);
      if (r >= 0) got[kind].push(ms); // round -1 warms the worker and the code up
    }
  }
  const line = (k) => `${k}: median ${quart(got[k], 0.5).toFixed(1)} ms (IQR ${quart(got[k], 0.25).toFixed(1)}–${quart(got[k], 0.75).toFixed(1)})`;
  console.log(`plan page (gpt2-124m, seq 1024, T4: the plan, its levers and the micro-batch sweep) beside the simulated memory experiment, ${ROUNDS} rounds interleaved`);
  console.log(`  ${line('plan')}; ${line('memory')}; ratio of medians ${(quart(got.plan, 0.5) / quart(got.memory, 0.5)).toFixed(2)}x`);
} finally {
  await browser.close();
  await server.stop();
}
