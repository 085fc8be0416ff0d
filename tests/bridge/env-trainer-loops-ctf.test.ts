/** Every trainer's loop over examples/ctf/env.yaml: see tests/bridge/trainer-loops.ts. */
import { startServe } from "./helpers.js";
import { trainerLoops } from "./trainer-loops.js";

// 16 concurrent episodes, not 64: each ctf episode starts bubblewrap sandboxes, so 64 took most of
// this suite's time. 16 at once still runs 8 sandboxed sessions of each task side by side (crossed
// sessions, a leaked sandbox or session fail as they would at 64); support-desk and wordle keep 64,
// and `npm run test:faults` runs ctf at 64 (tests/faults/long/env-trainer-loops-ctf-64.test.ts).
trainerLoops("ctf", { many: 8, startServe: (args) => startServe(args) });
