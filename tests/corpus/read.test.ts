import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readDocuments } from "../../src/corpus/read.js";
import { RubricateError } from "../../src/errors.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "corpus-read-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (name: string, content: string | Buffer) => {
  mkdirSync(join(dir, name, ".."), { recursive: true });
  writeFileSync(join(dir, name), content);
};

describe("readDocuments", () => {
  it("reads Markdown, text and HTML under the folder, sorted by path, with titles and detected languages; other and hidden files are skipped", async () => {
    write("b/policy.md", "---\ntitle: Travel policy\n---\n# Ignored heading\n\nThe daily meal allowance on business trips is 60 euros.\n\nIt is paid with the salary of the month after the trip.");
    write("a.txt", "Notes\n\nDie Erstattung der Reisekosten erfolgt mit dem Gehalt des Folgemonats, wenn die Belege vorliegen.");
    write(
      "page.html",
      '<html><head><title>Kestrel &amp; Co</title><script>var x = "not text";</script></head><body><nav><a href="/x">Home</a></nav><h1>Kestrel A1</h1><h2>Specifications</h2><p>The Kestrel A1 weighs <b>28.5 kg</b>.</p><img src="x.png" alt="a picture"></body></html>',
    );
    write("image.png", "\u0089PNG");
    write(".hidden/secret.md", "# no");
    const docs = await readDocuments(dir);
    expect(docs.map((d) => [d.id, d.title, d.lang])).toEqual([
      ["a.txt", "Notes", "de"],
      ["b/policy.md", "Travel policy", "en"],
      ["page.html", "Kestrel & Co", "en"],
    ]);
    expect(docs[1].text.startsWith("# Ignored heading")).toBe(true);
    // HTML: headings become Markdown lines (chunking cuts at them); scripts, link targets and images go.
    expect(docs[2].text).toBe("Home\n\n# Kestrel A1\n\n## Specifications\n\nThe Kestrel A1 weighs 28.5 kg.");
  });

  it("reads a PDF's text and its title from the metadata", async () => {
    const { PDFDocument, StandardFonts } = await import("pdf-lib");
    const pdf = await PDFDocument.create();
    pdf.setTitle("Jahresbericht 2025");
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    pdf.addPage().drawText("Im Jahr 2025 gab es 9 meldepflichtige Unfälle an allen Standorten.", { x: 50, y: 700, size: 11, font });
    write("report.pdf", Buffer.from(await pdf.save()));
    const [doc] = await readDocuments(dir);
    expect(doc).toMatchObject({ id: "report.pdf", title: "Jahresbericht 2025", lang: "de" });
    expect(doc.text).toContain("Im Jahr 2025 gab es 9 meldepflichtige Unfälle an allen Standorten.");
  });

  it("a file that cannot be read is an error naming it: a broken PDF, text that is not UTF-8", async () => {
    write("ok.md", "# fine");
    write("broken.pdf", "%PDF-1.7 this is not a PDF at all");
    await expect(readDocuments(dir)).rejects.toThrow(new RegExp(`^${join(dir, "broken.pdf").replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: cannot read PDF: `));
    rmSync(join(dir, "broken.pdf"));
    write("latin1.txt", Buffer.from([0x47, 0x72, 0xfc, 0xdf, 0x65]));
    const err = await readDocuments(dir).catch((e: unknown) => e);
    expect(RubricateError.isInstance(err) && err.code).toBe("BAD_INPUT");
    expect((err as Error).message).toBe(`${join(dir, "latin1.txt")}: cannot read TXT: not UTF-8 text`);
  });

  it("a missing folder, or one without documents, is an error naming the folder", async () => {
    await expect(readDocuments(join(dir, "nope"))).rejects.toThrow(`${join(dir, "nope")}: no such folder of documents`);
    write("notes.docx", "binary");
    await expect(readDocuments(dir)).rejects.toThrow(`${dir}: no documents (readable: .md, .markdown, .txt, .html, .htm, .pdf)`);
  });
});
