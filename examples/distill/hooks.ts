/** The capitals environment's custom check: the answer names the task's reference capital. */
import type { CheckFunction } from "rubricate";

export const checks: Record<string, CheckFunction> = {
  "names-capital": (text, { sample }) => text.toLowerCase().includes(String(sample.answer).toLowerCase()),
};
