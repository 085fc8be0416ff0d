/** Every trainer's loop over examples/support-desk/env.yaml: see tests/bridge/trainer-loops.ts. */
import { startServe } from "./helpers.js";
import { trainerLoops } from "./trainer-loops.js";

trainerLoops("support-desk", { many: 64, startServe: (args, env) => startServe(args, env) });
