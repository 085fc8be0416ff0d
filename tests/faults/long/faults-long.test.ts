import { describe, expect, it } from "vitest";
import { faultStorm } from "../scenario.js";

describe("fault injection (long)", () => {
  it("every fault at once over 400 samples, SIGKILLed at 20 random points and resumed", async () => {
    const summary = await faultStorm({ samples: 400, kills: 20, seed: 20261129, label: "long" });
    expect(summary).toContain("0 invented verdicts");
  }, 900_000);

  it("the same with another seed and 20 kills on 200 samples", async () => {
    const summary = await faultStorm({ samples: 200, kills: 20, seed: 4242, label: "long, seed 4242" });
    expect(summary).toContain("0 repeated paid calls");
  }, 900_000);
});
