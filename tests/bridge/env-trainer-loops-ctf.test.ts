/** Every trainer's loop over examples/ctf/env.yaml: see tests/bridge/trainer-loops.ts. */
import { startServe } from "./helpers.js";
import { trainerLoops } from "./trainer-loops.js";

// 8 concurrent episodes, not 64: each ctf episode starts bubblewrap sandboxes (one per command), so
// 64 took most of this suite's time. 8 at once still runs 4 sandboxed sessions of each task side by
// side, under each of the five adapters (crossed sessions, a leaked sandbox or session fail as they
// would at 64); support-desk and wordle keep 64, and `npm run test:faults` runs ctf at 64
// (tests/faults/long/env-trainer-loops-ctf-64.test.ts). 16 cost ~5 s more CPU (26.8 s against 22.1 s).
trainerLoops("ctf", { many: 8, startServe: (args, env) => startServe(args, env) });
