import { describe, expect, it } from "vitest";
import { modelFamily, sameFamilyWarning } from "../../src/judge/family.js";

describe("model families", () => {
  it("reads the family from the model name, then the first-party provider", () => {
    expect(modelFamily("gpt-4.1-mini")).toBe("OpenAI");
    expect(modelFamily("o3-mini")).toBe("OpenAI");
    expect(modelFamily("claude-haiku-4-5")).toBe("Anthropic");
    expect(modelFamily("Qwen/Qwen2.5-7B-Instruct")).toBe("Qwen");
    expect(modelFamily("meta-llama/Llama-3.1-8B-Instruct")).toBe("Meta");
    expect(modelFamily("gemini-2.5-flash")).toBe("Google");
    expect(modelFamily("deepseek-chat")).toBe("DeepSeek");
    expect(modelFamily("mixtral-8x7b")).toBe("Mistral");
    expect(modelFamily("my-finetune", "openai")).toBe("OpenAI");
    expect(modelFamily("judge-model", "openai-compatible")).toBeUndefined();
    // The server URL of an openai-compatible spec is not part of the name.
    expect(modelFamily("solver@http://127.0.0.1:8000/v1/openai")).toBeUndefined();
  });

  it("warns when judge and graded model share a family, not otherwise", () => {
    const w = sameFamilyWarning({ model: "gpt-4.1-mini", provider: "openai" }, { model: "gpt-4.1", provider: "openai" }, "policy");
    expect(w).toMatch(/the judge \(gpt-4\.1-mini\) and the policy \(gpt-4\.1\) are both OpenAI models/);
    expect(sameFamilyWarning({ model: "claude-haiku-4-5", provider: "anthropic" }, { model: "Qwen/Qwen2.5-7B-Instruct", provider: "openai-compatible" }, "teacher")).toBeUndefined();
    expect(sameFamilyWarning({ model: "Qwen/Qwen2.5-72B-Instruct" }, { model: "Qwen/Qwen2.5-7B-Instruct" }, "teacher")).toMatch(/teacher .* both Qwen models/);
    expect(sameFamilyWarning({ model: "judge-model" }, { model: "policy-model" }, "policy")).toBeUndefined();
  });
});
