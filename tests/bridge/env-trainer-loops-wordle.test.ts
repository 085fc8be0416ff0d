/** Every trainer's loop over examples/wordle/env.yaml: see tests/bridge/trainer-loops.ts. */
import { startServe } from "./helpers.js";
import { trainerLoops } from "./trainer-loops.js";

trainerLoops("wordle", { many: 64, startServe: (args, env) => startServe(args, env) });
