/** The ctf trainer loops at a trainer's usual batch, 64 concurrent sandboxed episodes per trainer (`npm test` runs 16: tests/bridge/env-trainer-loops-ctf.test.ts). */
import { startServe } from "../../bridge/helpers.js";
import { trainerLoops } from "../../bridge/trainer-loops.js";

trainerLoops("ctf", { many: 64, startServe: (args, env) => startServe(args, env) });
