import { describe, expect, it } from "vitest";
import { completionTokens, groupKey, normalizeRow, readVerdicts, sampleForRubric, splitConversation, toChatLine } from "../../src/distill/rows.js";

describe("normalizeRow", () => {
  it("a chat row: the last assistant turn is the completion, everything before it the prompt", () => {
    const row = normalizeRow({ messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi?" }, { role: "assistant", content: "Hello." }], reward: 0.5 }, 0)!;
    expect(row.prompt.map((m) => m.role)).toEqual(["system", "user"]);
    expect(row.completion).toEqual([{ role: "assistant", content: "Hello." }]);
    expect(row.response).toBe("Hello.");
    expect(row.reward).toBe(0.5);
  });

  it("a sample row: the rubric's other input is the user turn, the response field the answer", () => {
    const row = normalizeRow({ question: "Capital of France?", response: "Paris", reward: 1 }, 3, { inputs: ["question", "response"] })!;
    expect(row.prompt).toEqual([{ role: "user", content: "Capital of France?" }]);
    expect(row.completion).toEqual([{ role: "assistant", content: "Paris" }]);
    expect(row.index).toBe(3);
  });

  it("a prompt template builds the user turn from several fields", () => {
    const row = normalizeRow({ city: "Lyon", country: "France", answer_text: "No", reward: 0 }, 0, { promptTemplate: "Is {{city}} the capital of {{country}}?", responseField: "answer_text" })!;
    expect(row.prompt[0].content).toBe("Is Lyon the capital of France?");
    expect(row.response).toBe("No");
  });

  it("a rollout (neutral messages, tool calls, separate system) keeps the whole tool trajectory in the completion", () => {
    const rollout = {
      env: "search",
      model: "teacher",
      task: "t7",
      rollout: 2,
      system: "Use tools.",
      messages: [
        { role: "user", content: [{ text: "Find X" }] },
        { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "search", arguments: '{"q":"X"}' }] },
        { role: "tool", content: "X is 4", toolCallId: "c1" },
        { role: "assistant", content: "X is 4." },
      ],
      reward: 1,
      verdicts: [{ id: "right", status: "met", points: 1 }],
      usage: { policy: { outputTokens: 37 }, judge: { outputTokens: 999 } },
    };
    const row = normalizeRow(rollout, 0)!;
    expect(row.group).toBe("search/t7");
    expect(row.prompt).toEqual([{ role: "system", content: "Use tools." }, { role: "user", content: "Find X" }]);
    expect(row.completion.map((m) => m.role)).toEqual(["assistant", "tool", "assistant"]);
    expect(row.completion[0]).toEqual({ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "search", arguments: '{"q":"X"}' } }] });
    expect(row.completion[1]).toEqual({ role: "tool", content: "X is 4", tool_call_id: "c1" });
    expect(row.tokens).toBe(37);
    expect(row.ref).toMatchObject({ env: "search", task: "t7", model: "teacher", rollout: 2 });
  });

  it("a row without an assistant answer is unusable (null), not an empty completion", () => {
    expect(normalizeRow({ messages: [{ role: "user", content: "Hi?" }], reward: 1 }, 0)).toBeNull();
    expect(normalizeRow({ question: "Hi?", reward: 1 }, 0)).toBeNull();
  });

  it("a non-numeric reward is null (an error), never 0", () => {
    expect(normalizeRow({ prompt: "p", response: "r", reward: null, errors: [{ code: "JUDGE_PARSE" }] }, 0)!.reward).toBeNull();
    expect(normalizeRow({ prompt: "p", response: "r", reward: "0.3" }, 0)!.reward).toBeNull();
  });
});

describe("group keys", () => {
  const prompt = [{ role: "user" as const, content: "Q" }];
  it("task_id, then prompt_id, then the rollout's env/task, then a hash of the prompt", () => {
    expect(groupKey({ task_id: "a", prompt_id: "b" }, prompt)).toBe("a");
    expect(groupKey({ prompt_id: 5 }, prompt)).toBe("5");
    expect(groupKey({ env: "e", task: "t", rollout: 0 }, prompt)).toBe("e/t");
    const hashed = groupKey({}, prompt);
    expect(hashed).toMatch(/^prompt:[0-9a-f]{16}$/);
    expect(groupKey({}, [{ role: "user", content: "Q2" }])).not.toBe(hashed);
  });
  it("--group-by reads a dot path", () => {
    expect(groupKey({ meta: { family: "geo" } }, prompt, "meta.family")).toBe("geo");
  });
  it("rows with the same prompt but different answers share the hashed key", () => {
    const a = normalizeRow({ messages: [{ role: "user", content: "Q" }, { role: "assistant", content: "A" }], reward: 1 }, 0)!;
    const b = normalizeRow({ messages: [{ role: "user", content: "Q" }, { role: "assistant", content: "B" }], reward: 0 }, 1)!;
    expect(a.group).toBe(b.group);
  });
});

describe("pieces", () => {
  it("splitConversation cuts after the last user/system turn", () => {
    const { prompt, completion } = splitConversation([
      { role: "user", content: "1" },
      { role: "assistant", content: "2" },
      { role: "user", content: "3" },
      { role: "assistant", content: "4" },
    ]);
    expect(prompt.map((m) => m.content)).toEqual(["1", "2", "3"]);
    expect(completion.map((m) => m.content)).toEqual(["4"]);
  });
  it("tokens: usage.outputTokens when present, else ⌈characters / 4⌉ of the completion", () => {
    expect(completionTokens({ usage: { outputTokens: 9 } }, [{ role: "assistant", content: "x".repeat(100) }])).toBe(9);
    expect(completionTokens({}, [{ role: "assistant", content: "x".repeat(9) }])).toBe(3);
  });
  it("verdicts from results lists or id → boolean maps", () => {
    expect(readVerdicts([{ id: "a", status: "met", points: -2 }])).toEqual([{ id: "a", status: "met", points: -2 }]);
    expect(readVerdicts({ a: true, b: false })).toEqual([
      { id: "a", status: "met", points: 1 },
      { id: "b", status: "unmet", points: 1 },
    ]);
  });
  it("toChatLine maps developer to system and drops what is not a message", () => {
    expect(toChatLine({ role: "developer", content: "x" })).toEqual({ role: "system", content: "x" });
    expect(toChatLine({ role: "narrator", content: "x" })).toBeNull();
  });
  it("sampleForRubric maps a chat row to the rubric's inputs", () => {
    const s = sampleForRubric({ messages: [{ role: "user", content: "U1" }, { role: "assistant", content: "A1" }, { role: "user", content: "U2" }, { role: "assistant", content: "A2" }] }, ["question", "response"]);
    expect(s.response).toBe("A2");
    expect(s.question).toBe("U1\n\nU2");
  });
});
