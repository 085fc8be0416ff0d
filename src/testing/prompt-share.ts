/**
 * How much of a judge request a provider's prompt cache can reuse across samples, measured on the
 * request bodies the local wire servers received. A provider caches a prefix of the prompt as it
 * tokenises it: Anthropic in the order tools, system, messages; OpenAI the messages (the
 * structured-output schema rides beside them). So a request is read in that order, and what two
 * requests for different samples share is their longest common prefix in it.
 */

/** A request body as a provider's prompt cache reads it: its cacheable text, in prompt order. */
export function promptOrder(body: Record<string, unknown>): string {
  const text = (content: unknown): string =>
    typeof content === "string" ? content : Array.isArray(content) ? content.map((p: { text?: string }) => p.text ?? "").join("") : "";
  const messages = ((body.messages ?? []) as { content?: unknown }[]).map((m) => text(m.content)).join("\n");
  // Anthropic: tools (the forced answer tool) and the system text come before the messages.
  const anthropicHead = body.tools && !body.response_format ? JSON.stringify(body.tools) : "";
  return `${anthropicHead}${text(body.system)}${messages}`;
}

/** Length of the longest common prefix of two strings. */
export function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** What a mode's requests look like on the wire: their size and the share a prompt cache reuses across samples. */
export interface PromptShare {
  /** Mean characters of a request body as sent. */
  requestChars: number;
  /** Mean characters of the prompt (prompt order) that are not the sample's own text. */
  nonSampleChars: number;
  /** Mean characters of the prompt that a request shares with the same call for another sample. */
  sharedChars: number;
  /** sharedChars / nonSampleChars. */
  share: number;
}

/**
 * Measures requests grouped by call (the same questions asked of different samples): each
 * request's shared prefix is its longest common prefix with the group's other requests, and its
 * non-sample characters are its prompt less the sample's own text (`sampleChars`).
 */
export function measurePromptShare(groups: { body: Record<string, unknown>; sampleChars: number }[][]): PromptShare {
  let requestChars = 0;
  let nonSample = 0;
  let shared = 0;
  let n = 0;
  for (const group of groups) {
    const prompts = group.map((r) => promptOrder(r.body));
    group.forEach((r, i) => {
      const others = prompts.filter((_, j) => j !== i);
      shared += others.length ? Math.max(...others.map((o) => commonPrefix(prompts[i], o))) : 0;
      nonSample += prompts[i].length - r.sampleChars;
      requestChars += JSON.stringify(r.body).length;
      n++;
    });
  }
  return { requestChars: requestChars / n, nonSampleChars: nonSample / n, sharedChars: shared / n, share: shared / nonSample };
}
