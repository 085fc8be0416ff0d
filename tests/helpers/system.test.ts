import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "./cli.js";
import { findChromium } from "./system.js";

/** An executable file named `name` in a fresh folder. */
function fakeBinary(name: string): { dir: string; path: string } {
  const dir = tempDir("rubricate-chromium-");
  const path = join(dir, name);
  writeFileSync(path, "#!/bin/sh\nexit 0\n");
  chmodSync(path, 0o755);
  return { dir, path };
}

describe("findChromium", () => {
  it("takes RUBRICATE_CHROMIUM, then CHROMIUM_PATH, and nothing else when the variable names a missing file", () => {
    const a = fakeBinary("my-chrome");
    const b = fakeBinary("other-chrome");
    expect(findChromium({ RUBRICATE_CHROMIUM: a.path, CHROMIUM_PATH: b.path, PATH: "" }, [])).toBe(a.path);
    expect(findChromium({ CHROMIUM_PATH: b.path, PATH: "" }, [])).toBe(b.path);
    expect(findChromium({ RUBRICATE_CHROMIUM: join(a.dir, "missing"), PATH: "" }, [b.path])).toBeUndefined();
  });

  it("finds Ubuntu's chromium-browser and Google's google-chrome on PATH, not only /usr/bin/chromium", () => {
    const ubuntu = fakeBinary("chromium-browser");
    expect(findChromium({ PATH: ubuntu.dir }, [])).toBe(ubuntu.path);
    const google = fakeBinary("google-chrome");
    expect(findChromium({ PATH: google.dir }, [])).toBe(google.path);
  });

  it("falls back to the usual install paths, and is absent when there is none", () => {
    const snap = fakeBinary("chromium");
    expect(findChromium({ PATH: "" }, [join(snap.dir, "nope"), snap.path])).toBe(snap.path);
    expect(findChromium({ PATH: "" }, [join(snap.dir, "nope")])).toBeUndefined();
  });
});
