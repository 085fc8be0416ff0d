/**
 * Counts the event loop's turns while some work is awaited: work done on the loop's own thread
 * (a synchronous check) lets none through until it ends; work awaited elsewhere (a worker) lets
 * them run. A count, not a time: it does not depend on the machine's speed.
 */
export async function loopTurnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let running = true;
  const turn = () => {
    turns++;
    if (running) setImmediate(turn);
  };
  setImmediate(turn);
  try {
    return { result: await work(), turns };
  } finally {
    running = false;
  }
}
