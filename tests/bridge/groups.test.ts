/** GRPO groups through the reward server: `/v1/score` with `group_by` adds each sample's advantage. */
import { describe, expect, it } from "vitest";
import { parseRubric } from "../../src/rubric/load.js";
import { groupRewards } from "../../src/score/group.js";
import { serveRubric } from "./rubric-server.js";

const served = serveRubric(parseRubric("id: says-yes\ninputs: [response]\ncriteria:\n  - { id: yes, check: { contains: yes } }\n"));
const post = (body: unknown) => served.post("/v1/score", body);

describe("/v1/score with group_by", () => {
  it("adds advantages computed per group, equal to score()'s group rewards", async () => {
    const samples = [
      { prompt: "a", response: "yes" },
      { prompt: "a", response: "no" },
      { prompt: "b", response: "yes" },
      { prompt: "b", response: "yes" },
      { prompt: "a", response: "yes" },
    ];
    const { status, json } = await post({ samples, group_by: "prompt" });
    expect(status).toBe(200);
    expect(json.rewards).toEqual([1, 0, 1, 1, 1]);
    const expected = groupRewards(samples.map((s, i) => ({ group: s.prompt, reward: json.rewards[i] }))).members.map((m) => m.advantage);
    expect(json.advantages).toEqual(expected);
    // Group a: rewards 1, 0, 1 → the "no" is below its group's mean; group b has no spread → 0.
    expect(json.advantages[1]).toBeLessThan(0);
    expect(json.advantages[0]).toBeGreaterThan(0);
    expect(json.advantages.slice(2, 4)).toEqual([0, 0]);
    const none = await post({ samples, group_by: "prompt", advantage: "none" });
    expect(none.json.advantages[1]).toBeCloseTo(0 - 2 / 3, 10);
  });

  it("without group_by the answer has no advantages; a sample missing the field is a 400 naming it", async () => {
    expect((await post({ samples: [{ response: "yes" }] })).json.advantages).toBeUndefined();
    const bad = await post({ samples: [{ prompt: "a", response: "yes" }, { response: "no" }], group_by: "prompt" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.field).toBe("samples.1.prompt");
  });

  it("a field every object inherits (toString, constructor, __proto__) is no sample's field: a 400 (it grouped every sample by a function before)", async () => {
    for (const groupBy of ["toString", "constructor", "__proto__", "hasOwnProperty"]) {
      const bad = await post({ samples: [{ response: "yes" }, { response: "no" }], group_by: groupBy });
      expect(bad.status, groupBy).toBe(400);
      expect(bad.json.error, groupBy).toMatchObject({ code: "INVALID_REQUEST", field: `samples.0.${groupBy}` });
    }
    const own = await post({ samples: [{ constructor: "a", response: "yes" }, { constructor: "a", response: "no" }], group_by: "constructor" });
    expect(own.status).toBe(200);
    expect(own.json.advantages).toHaveLength(2);
  });
});
