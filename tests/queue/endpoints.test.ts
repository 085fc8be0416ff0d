/**
 * A queued run's fingerprint names the servers its judges and models call, as their providers
 * resolve them (base_url, else OPENAI_BASE_URL / ANTHROPIC_BASE_URL, else the provider's API):
 * two runs against different servers behind the same model name must not share chunks or a
 * `.partial`. Credentials never enter it.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { judgeEndpoints } from "../../src/queue/endpoints.js";
import { envFingerprint } from "../../src/queue/eval-job.js";
import { fingerprintOf } from "../../src/queue/score-job.js";
import { loadEnvironmentSpec } from "../../src/hub/resolve.js";
import { parseRubric } from "../../src/rubric/load.js";
import { ROOT, tempDir } from "../helpers/cli.js";

const dir = tempDir("rubricate-queue-endpoints-");
const rubric = parseRubric("id: r\ncriteria:\n  - { id: a, question: Is it polite?, points: 1 }\n", { filename: "r.yaml" });
const judgeFile = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const openai = judgeFile("openai.yaml", "provider: openai\nmodel: gpt-4.1-mini\n");
const fingerprint = () => fingerprintOf(rubric, openai, undefined);

afterEach(() => vi.unstubAllEnvs());

describe("a score run's fingerprint and its judge's server", () => {
  it("changes with OPENAI_BASE_URL when the judge file names no base_url", () => {
    vi.stubEnv("OPENAI_BASE_URL", "http://10.0.0.7:8000/v1");
    const first = fingerprint();
    expect(fingerprint()).toBe(first);
    vi.stubEnv("OPENAI_BASE_URL", "http://10.0.0.8:8000/v1");
    expect(fingerprint()).not.toBe(first);
    // Unset is OpenAI's own API, as the client resolves it: a third server.
    vi.stubEnv("OPENAI_BASE_URL", "");
    expect(fingerprint()).not.toBe(first);
  });

  it("a base_url in the judge file wins over the variable, as it does in the provider", () => {
    const pinned = judgeFile("pinned.yaml", "provider: openai\nmodel: gpt-4.1-mini\nbase_url: http://10.0.0.9:8000/v1\n");
    vi.stubEnv("OPENAI_BASE_URL", "http://10.0.0.7:8000/v1");
    const first = fingerprintOf(rubric, pinned, undefined);
    vi.stubEnv("OPENAI_BASE_URL", "http://10.0.0.8:8000/v1");
    expect(fingerprintOf(rubric, pinned, undefined)).toBe(first);
  });

  it("every member of a panel counts, each with its own provider's variable", () => {
    judgeFile("claude.yaml", "provider: anthropic\nmodel: claude-haiku-4-5\n");
    const panel = judgeFile("panel.yaml", "panel: [openai.yaml, claude.yaml]\n");
    const first = fingerprintOf(rubric, panel, undefined);
    vi.stubEnv("ANTHROPIC_BASE_URL", "http://10.0.0.7:9000");
    expect(fingerprintOf(rubric, panel, undefined)).not.toBe(first);
  });

  it("credentials in the base URL and the API key stay out; only the server counts", () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-endpoints-secret-1");
    vi.stubEnv("OPENAI_BASE_URL", "http://proxy-user:proxy-secret@10.0.0.7:8000/v1?api_key=url-secret");
    const named = JSON.stringify(judgeEndpoints(openai));
    expect(named).toContain("10.0.0.7:8000/v1");
    for (const secret of ["sk-endpoints-secret-1", "proxy-secret", "proxy-user", "url-secret"]) expect(named).not.toContain(secret);
    const withCredentials = fingerprint();
    vi.stubEnv("OPENAI_API_KEY", "sk-endpoints-rotated-2");
    vi.stubEnv("OPENAI_BASE_URL", "http://10.0.0.7:8000/v1");
    expect(fingerprint()).toBe(withCredentials);
  });
});

describe("an eval run's fingerprint and the servers of its judge and models", () => {
  it("changes with the variable of the policy's provider, and of the judge the environment's rubric names", async () => {
    const env = await loadEnvironmentSpec(join(ROOT, "examples/wordle/env.yaml"));
    const of = () => envFingerprint(env, undefined, { models: ["anthropic:claude-haiku-4-5"], envModels: [] });
    const first = of();
    vi.stubEnv("ANTHROPIC_BASE_URL", "http://10.0.0.7:9000");
    const policyMoved = of();
    expect(policyMoved).not.toBe(first);
    // The rubric's judge (packaged openai-small) calls OpenAI's API unless told otherwise.
    vi.stubEnv("OPENAI_BASE_URL", "http://10.0.0.8:8000/v1");
    expect(of()).not.toBe(policyMoved);
  });
});
