/**
 * A stand-in for OpenRLHF's OpenAI-server executor (examples/python/agent_func_openai_server_executor.py,
 * OpenRLHF 3c3be62), reduced to what a policy endpoint's client can observe. OpenRLHF and vLLM
 * are not installable here, so its `/v1/chat/completions` handler and `_stitch_session` are
 * reproduced from that file:
 *
 * - every call renders ALL `messages` with the chat template (`apply_chat_template(messages,
 *   tokenize=False, add_generation_prompt=True)`, no `tools` passed) and encodes the text;
 * - `session_id` (default: a fresh one) keys a token buffer; a later call of the session asserts
 *   that its prompt tokens start with the buffer (the previous prompt + generated ids), else the
 *   handler raises (FastAPI answers 500);
 * - `max_tokens` defaults to the executor's sampling params; `logprobs`/`top_logprobs` are read;
 * - the answer is `{"role": "assistant", "content": gen_text}`: vLLM's decoded text, never
 *   `tool_calls` (no tool parser), and the generated ids end with the end token;
 * - `_stitch_session` asserts each trace's prompt extends the previous trace's full sequence.
 *
 * The template is Qwen 2.5's (system, user, assistant with `tool_calls` written through
 * `tojson`, tool results as `<tool_response>` in a user turn); the tokenizer splits the special
 * tokens out and keeps every other character a token, which keeps prefixes exact as BPE would
 * under OpenRLHF's own "prefix stability" assumption.
 */
import { randomUUID } from "node:crypto";
import { listen, readJson, sendJson } from "../../src/testing/servers/common.js";

/** An OpenAI chat message as the executor's server receives it. */
export interface ExecutorMessage {
  role: string;
  content: string | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

const IM_START = "<|im_start|>";
const IM_END = "<|im_end|>";

/** Qwen 2.5's chat template over OpenAI messages (tools not passed, as the executor calls it). */
export function qwenTemplate(messages: ExecutorMessage[], addGenerationPrompt = true): string {
  let out = "";
  if (messages[0]?.role !== "system") out += `${IM_START}system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.${IM_END}\n`;
  messages.forEach((m, i) => {
    if (m.role === "user" || m.role === "system" || (m.role === "assistant" && !m.tool_calls)) {
      out += `${IM_START}${m.role}\n${m.content ?? ""}${IM_END}\n`;
    } else if (m.role === "assistant") {
      out += `${IM_START}assistant`;
      if (m.content) out += `\n${m.content}`;
      // `tool_call.arguments | tojson`: the template's spelling, not the model's.
      for (const c of m.tool_calls!) out += `\n<tool_call>\n{"name": "${c.function.name}", "arguments": ${JSON.stringify(c.function.arguments)}}\n</tool_call>`;
      out += `${IM_END}\n`;
    } else if (m.role === "tool") {
      if (i === 0 || messages[i - 1].role !== "tool") out += `${IM_START}user`;
      out += `\n<tool_response>\n${m.content ?? ""}\n</tool_response>`;
      if (i === messages.length - 1 || messages[i + 1].role !== "tool") out += `${IM_END}\n`;
    }
  });
  return addGenerationPrompt ? `${out}${IM_START}assistant\n` : out;
}

/** Special tokens as one token each, every other character a token of its own. */
export function encode(text: string): string[] {
  return text.split(/(<\|im_start\|>|<\|im_end\|>)/).flatMap((part) => (part === IM_START || part === IM_END ? [part] : [...part]));
}

interface TokenTrace {
  prompt: string[];
  completion: string[];
  logprobs?: number[];
}

/** What a session's stitched sample holds: the tokens and the action ranges, or why OpenRLHF would raise. */
export interface Stitched {
  observationTokens: number;
  actionRanges: [number, number][];
  logprobs: number;
  error?: string;
}

/** The running stand-in: its URL, the failures it raised, and `_stitch_session` per session. */
export interface ServerExecutor {
  url: string;
  /** Every request body, in arrival order. */
  bodies: Record<string, unknown>[];
  /** The handler's raised assertions ("prefix mismatch"), in arrival order. */
  failures: string[];
  stitch(sessionId: string): Stitched;
  close(): Promise<void>;
}

/** Starts the executor's server; `model(messages)` is the policy: the raw text vLLM would decode. */
export async function startServerExecutor(model: (messages: ExecutorMessage[]) => string, maxLength = 100_000): Promise<ServerExecutor> {
  const buffers = new Map<string, string[]>();
  const traces = new Map<string, TokenTrace[]>();
  const bodies: Record<string, unknown>[] = [];
  const failures: string[] = [];
  const { url, close } = await listen((req, res) => {
    void (async () => {
      const body = (await readJson(req)) as Record<string, unknown>;
      bodies.push(body);
      const messages = body.messages as ExecutorMessage[];
      const sessionId = String(body.session_id ?? randomUUID());
      const full = encode(qwenTemplate(messages));
      const buffer = buffers.get(sessionId);
      if (buffer && !(full.length >= buffer.length && buffer.every((t, i) => full[i] === t))) {
        failures.push(`Session ${sessionId}: prefix mismatch — buffer(${buffer.length}) vs full_prompt(${full.length})`);
        return sendJson(res, 500, { detail: "Internal Server Error" });
      }
      const prompt = buffer ? [...buffer, ...full.slice(buffer.length)] : full;
      if (maxLength - prompt.length <= 0)
        return sendJson(res, 400, {
          detail: `Prompt (${prompt.length}) exceeds max_length (${maxLength})`,
        });
      const text = model(messages);
      const completion = [...encode(text), IM_END];
      buffers.set(sessionId, [...prompt, ...completion]);
      const trace: TokenTrace = {
        prompt,
        completion,
        ...(body.logprobs ? { logprobs: completion.map(() => -0.5) } : {}),
      };
      traces.set(sessionId, [...(traces.get(sessionId) ?? []), trace]);
      sendJson(res, 200, {
        id: `chatcmpl-${randomUUID().slice(0, 24)}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: text },
            finish_reason: "stop",
            logprobs: null,
          },
        ],
        usage: {
          prompt_tokens: prompt.length,
          completion_tokens: completion.length,
          total_tokens: prompt.length + completion.length,
        },
      });
    })();
  });
  return {
    url: `${url}/v1`,
    bodies,
    failures,
    stitch(sessionId) {
      const list = traces.get(sessionId) ?? [];
      if (!list.length)
        return {
          observationTokens: 0,
          actionRanges: [],
          logprobs: 0,
          error: `No token traces for session ${sessionId}`,
        };
      for (let i = 1; i < list.length; i++) {
        const prev = [...list[i - 1].prompt, ...list[i - 1].completion];
        const cur = list[i].prompt;
        if (!(cur.length >= prev.length && prev.every((t, j) => cur[j] === t))) {
          return {
            observationTokens: 0,
            actionRanges: [],
            logprobs: 0,
            error: `Session ${sessionId}: prefix break at call ${i}`,
          };
        }
      }
      const last = list.at(-1)!;
      return {
        observationTokens: last.prompt.length + last.completion.length,
        actionRanges: list.map((t) => [t.prompt.length, t.prompt.length + t.completion.length]),
        logprobs: list.reduce((n, t) => n + (t.logprobs?.length ?? 0), 0),
      };
    },
    close,
  };
}
