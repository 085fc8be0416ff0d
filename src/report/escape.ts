/**
 * Escapes text for HTML and SVG, in element content and in quoted attribute values.
 * @example escapeHtml('<a href="x">') // "&lt;a href=&quot;x&quot;&gt;"
 */
export function escapeHtml(text: unknown): string {
  return String(text ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}
