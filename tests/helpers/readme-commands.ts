/**
 * The commands of a markdown page's ```sh blocks, as a shell would read them: README.md and the
 * docs pages whose commands their tests run (tests/readme.test.ts, tests/cli/env-synth.test.ts).
 */
/** One command of a page: the block it is in (1-based) and its text as a shell would read it. */
export interface ReadmeCommand {
  block: number;
  line: number;
  text: string;
}

/** The commands of a page's ```sh blocks (not ```sh norun, not inside HTML comments). */
export function readmeCommands(markdown: string): ReadmeCommand[] {
  const visible = markdown.replace(/<!--[\s\S]*?-->/g, (c) => c.replace(/[^\n]/g, " "));
  const lines = visible.split("\n");
  const commands: ReadmeCommand[] = [];
  let block = 0;
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\S*)\s*(.*)$/.exec(lines[i]);
    if (!fence) continue;
    const runs = fence[1] === "sh" && fence[2].trim() === "";
    let j = i + 1;
    const body: { n: number; text: string }[] = [];
    while (j < lines.length && !/^```\s*$/.test(lines[j])) body.push({ n: j + 1, text: lines[j++] });
    i = j;
    if (!fence[1]) continue;
    block++;
    if (!runs) continue;
    for (let k = 0; k < body.length; k++) {
      if (body[k].text.trim() === "" || body[k].text.trim().startsWith("#")) continue;
      const start = body[k].n;
      let text = body[k].text;
      while (/\\\s*$/.test(text) && k + 1 < body.length) text = `${text.replace(/\\\s*$/, "")} ${body[++k].text.trim()}`;
      commands.push({ block, line: start, text });
    }
  }
  return commands;
}

/**
 * A bash function put before a page's commands: `npx <bin>` for a bin of the working folder's
 * node_modules/.bin runs that file, as npx itself does for a locally installed bin, without paying
 * npm's start (1.1–1.6 s of CPU per command on the two cores, measured against 0.15 s for the bin
 * alone). Any other `npx` call goes to the real npx. A test using it also checks, with the real
 * npx, that npx resolves the bins it runs to those files (tests/readme.test.ts, tests/hub/hub-docs.test.ts).
 */
export const LOCAL_NPX = 'npx() { if [ -x "$PWD/node_modules/.bin/$1" ]; then local bin="$PWD/node_modules/.bin/$1"; shift; "$bin" "$@"; else command npx "$@"; fi; }';
