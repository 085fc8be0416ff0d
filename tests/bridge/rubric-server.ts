/** A reward server for one rubric, shared by a test file's tests: started before them, closed after. */
import { afterAll, beforeAll } from "vitest";
import { createRewardServer, type RewardServer } from "../../src/bridge/server.js";
import type { Rubric } from "../../src/rubric/schema.js";

/** The file's server: its URL once started, and a POST that returns the status and parsed JSON. */
export interface ServedRubric {
  readonly url: string;
  post(path: string, body: unknown): Promise<{ status: number; json: Record<string, any> }>;
}

/**
 * Registers the server's start and close with the file's hooks.
 * @example const served = serveRubric(rubric); it("…", async () => expect((await served.post("/v1/score", { samples })).status).toBe(200));
 */
export function serveRubric(rubric: Rubric): ServedRubric {
  let server: RewardServer | undefined;
  let url: string | undefined;
  beforeAll(async () => {
    server = createRewardServer({ rubric });
    url = await server.listen(0);
  });
  afterAll(() => server?.close());
  return {
    get url() {
      if (url === undefined) throw new Error("the rubric's server starts in beforeAll: read its url inside a test");
      return url;
    },
    async post(path, body) {
      const res = await fetch(`${this.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      return { status: res.status, json: (await res.json()) as Record<string, any> };
    },
  };
}
