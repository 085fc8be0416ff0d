import { describe, expect, it } from "vitest";
import { runCheck } from "../../../src/checks/run.js";

const stated = async (response: string, format: "any" | "boxed" = "boxed") => (await runCheck({ final_answer: { format } }, { response })).pass;

describe("final_answer: a box painted in a colour no page shows states nothing", () => {
  it.each(["\\color{#ffff}{42}", "\\color{#FFFFFFFF}{42}", "\\color{#0000}{42}", "\\color{#12345600}{42}", "\\textcolor{#abc0}{42}", "\\color[RGB]{255,255,255}{42}", "\\color[RGB]{255, 255, 255} 42"])("\\boxed{%s}", async (content) => {
    for (const format of ["boxed", "any"] as const) expect(await stated(`So \\boxed{${content}}.`, format), format).toBe(false);
  });

  it("a colour a page shows still leaves the answer stated", async () => {
    for (const content of ["\\color{#fff1}{42}", "\\color{#ffffff01}{42}", "\\color{#f00}{42}", "\\color[RGB]{255,0,0}{42}", "\\color{#ffffe0}{42}"]) expect(await stated(`So \\boxed{${content}}.`), content).toBe(true);
  });
});
