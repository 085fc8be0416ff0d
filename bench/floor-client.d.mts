/** See floor-client.mjs. */
export function bareClientRun(baseURL: string, bodies: readonly string[], concurrency: number): Promise<number>;
