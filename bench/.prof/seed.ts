import { FaultPlan } from "../../tests/servers/common.js";
for (const seed of [7, 11, 3, 5, 42]) {
  const p = new FaultPlan({ seed, rates: { "429": 0.2, "500": 0.05, "529": 0.05, hang: 0.02, reset: 0.03, truncated: 0.03, garbage: 0.02 } });
  const first: Record<string, number> = {};
  for (let i = 0; i < 400; i++) { const f = p.pick(i); if (first[f] === undefined) first[f] = i; }
  console.log(seed, JSON.stringify(first));
}
