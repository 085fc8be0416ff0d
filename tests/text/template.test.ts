import { describe, expect, it } from "vitest";
import { RubricateError } from "../../src/errors.js";
import { renderReference, renderTemplate, templateLength, templateVariables, variableText } from "../../src/text/template.js";

describe("renderTemplate", () => {
  it("fills {{var}} (spaces allowed inside the braces)", () => {
    expect(renderTemplate("Is {{answer}} right? {{ answer }}!", { answer: "42" })).toBe("Is 42 right? 42!");
  });

  it("does no HTML escaping", () => {
    expect(renderTemplate("Q: {{q}}", { q: `<b>a & b</b> "quoted" 'single'` })).toBe(`Q: <b>a & b</b> "quoted" 'single'`);
  });

  it("inserts the value literally, even when it looks like a replacement pattern or a template", () => {
    expect(renderTemplate("{{a}}", { a: "$& $1 $$ {{b}}", b: "B" })).toBe("$& $1 $$ {{b}}");
  });

  it("a missing (or null) variable is TEMPLATE_MISSING_VAR, never an empty string", () => {
    for (const vars of [{}, { name: null }, { name: undefined }]) {
      let error: unknown;
      try {
        renderTemplate("Hello {{name}}", vars);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(RubricateError);
      expect((error as RubricateError).code).toBe("TEMPLATE_MISSING_VAR");
      expect((error as RubricateError).message).toBe("template variable {{name}} is not in the sample");
    }
  });

  it("an empty string value is a value, not a missing one", () => {
    expect(renderTemplate("[{{x}}]", { x: "" })).toBe("[]");
  });

  it("follows dotted paths; a key with a dot in it wins over the path", () => {
    expect(renderTemplate("{{meta.lang}}/{{meta.tags.0}}", { meta: { lang: "fr", tags: ["a"] } })).toBe("fr/a");
    expect(renderTemplate("{{meta.lang}}", { "meta.lang": "flat", meta: { lang: "nested" } })).toBe("flat");
    expect(() => renderTemplate("{{meta.missing}}", { meta: { lang: "fr" } })).toThrow(expect.objectContaining({ code: "TEMPLATE_MISSING_VAR" }));
    expect(() => renderTemplate("{{meta.lang.x}}", { meta: { lang: "fr" } })).toThrow(expect.objectContaining({ code: "TEMPLATE_MISSING_VAR" }));
  });

  it("does not read inherited properties", () => {
    expect(() => renderTemplate("{{constructor}}", {})).toThrow(expect.objectContaining({ code: "TEMPLATE_MISSING_VAR" }));
    expect(() => renderTemplate("{{a.toString}}", { a: {} })).toThrow(expect.objectContaining({ code: "TEMPLATE_MISSING_VAR" }));
  });

  it("non-strings become JSON; numbers and booleans their text", () => {
    expect(renderTemplate("{{n}} {{b}} {{o}}", { n: 3.5, b: false, o: { k: [1, 2] } })).toBe('3.5 false {"k":[1,2]}');
  });

  it("templateVariables lists names in first-use order", () => {
    expect(templateVariables("{{b}} {{a.x}} {{ b }} {{c}}")).toEqual(["b", "a.x", "c"]);
    expect(templateVariables("no vars {single} {{ }}")).toEqual([]);
  });
});

describe("templateLength", () => {
  it("is the length renderTemplate gives, without rendering; each use of a variable counts", () => {
    const vars = { a: "x".repeat(1000), n: 42, o: { k: [1, 2] }, nested: { name: "Ada" } };
    for (const text of ["{{a}}", "{{a}}-{{ a }}-{{n}}", "plain", "{{o}} and {{nested.name}}", ""]) {
      const lengths: string[] = [];
      const length = templateLength(text, (name) => (lengths.push(name), variableText(vars, name)!.length));
      expect([text, length]).toEqual([text, renderTemplate(text, vars).length]);
      expect(lengths.length).toBe(templateVariables(text).length === 0 ? 0 : [...text.matchAll(/\{\{/g)].length);
    }
  });

  it("variableText is what {{name}} renders to: the text, or the JSON; undefined when missing", () => {
    expect([variableText({ a: "x" }, "a"), variableText({ n: 1 }, "n"), variableText({ a: { b: [1] } }, "a.b"), variableText({}, "a"), variableText({ a: null }, "a")]).toEqual(["x", "1", "[1]", undefined, undefined]);
  });
});

describe("renderReference", () => {
  it("renders a reference, and one that comes out blank is the sample's MISSING_INPUT naming the check", () => {
    expect(renderReference("math", "{{answer}}", { answer: "42" })).toBe("42");
    expect(renderReference("math", "x = {{answer}}", { answer: "" })).toBe("x = ");
    for (const answer of ["", " \n"]) {
      expect(() => renderReference("similarity", "{{answer}}", { answer })).toThrow(expect.objectContaining({ code: "MISSING_INPUT", message: 'similarity: the reference answer "{{answer}}" is empty for this sample' }));
    }
  });
});
