/**
 * A package README as safe HTML: markdown rendered by marked, then every tag and attribute not on
 * sanitize-html's allow-list removed (scripts, event handlers, `javascript:` links, iframes,
 * styles). A README is written by whoever published the package, so it is untrusted input.
 */
import { marked } from "marked";
import sanitizeHtml from "sanitize-html";

const ALLOWED: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, "img", "h1", "h2", "del", "input"],
  allowedAttributes: {
    a: ["href", "title", "rel"],
    img: ["src", "alt", "title"],
    code: ["class"],
    input: ["type", "checked", "disabled"],
    th: ["align"],
    td: ["align"],
  },
  allowedSchemes: ["http", "https", "mailto"],
  allowedSchemesByTag: { img: ["https", "data"] },
  // Links leave the hub without handing it the referrer or a window handle.
  transformTags: { a: sanitizeHtml.simpleTransform("a", { rel: "nofollow noopener noreferrer" }) },
};

/** Renders and sanitises a README (markdown, HTML allowed in it as npm allows it). */
export function renderReadme(markdown: string): string {
  const rendered = marked.parse(markdown, { async: false, gfm: true });
  return sanitizeHtml(rendered, ALLOWED);
}
