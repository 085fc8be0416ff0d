import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { requestHeaders, responseHeaders, transport } from "./http-fetch.js";

/**
 * A `fetch` for the batch clients over `node:http(s)` that streams both ways: request bodies
 * (a 200 MB upload) are piped with backpressure, and response bodies (result files of hundreds of
 * megabytes) are handed over as streams. Node's global fetch buffers a streamed upload almost
 * whole (about +180 MB for a 160 MB file, measured), and the JSON fetch of the live path reads
 * every response into memory; here memory stays flat at any size.
 * @example new OpenAI({ fetch: streamingFetch })
 */
export const streamingFetch: typeof fetch = async (input, init = {}) => {
  if (input instanceof Request) return fetch(input, init);
  const url = new URL(input as string | URL);
  if (url.protocol !== "http:" && url.protocol !== "https:") return fetch(input, init);
  const headers = requestHeaders(init);
  const body = init.body;
  if (body instanceof Blob && headers["content-length"] === undefined) headers["content-length"] = String(body.size);
  const { request: send, agent } = transport(url.protocol);
  return new Promise<Response>((resolve, reject) => {
    const request = send(url, { method: init.method ?? "GET", headers, agent, signal: init.signal ?? undefined }, (res) => {
      const status = res.statusCode ?? 502;
      const nullBody = status === 204 || status === 304 || init.method === "HEAD";
      if (nullBody) res.resume();
      resolve(new Response(nullBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, statusText: res.statusMessage, headers: responseHeaders(res.headers) }));
    });
    request.on("error", reject);
    if (body === undefined || body === null) request.end();
    else if (typeof body === "string" || body instanceof Uint8Array) request.end(body);
    else if (body instanceof Blob) pipeline(Readable.fromWeb(body.stream() as never), request).catch(reject);
    else if (body instanceof ReadableStream) pipeline(Readable.fromWeb(body as never), request).catch(reject);
    else reject(new TypeError("streamingFetch: unsupported request body"));
  });
};
