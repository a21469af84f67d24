// The page's one way to the API: the generated client, with the caller's
// credentials on every request, the cost headers of the last answer kept
// for display, and 429/503 answers retried after their Retry-After.
import { signal } from "@preact/signals";
import { todoClient, type components } from "../../client/typescript/index";
import { authorize } from "./auth";

export type Todo = components["schemas"]["Todo"];
export type TodoPatch = components["schemas"]["TodoPatch"];
export type Problem = components["schemas"]["Problem"];

/** The last answer's X-Query-Scope and X-Request-Charge. */
export const cost = signal<{ scope: string; charge: string } | null>(null);
/** What the page is waiting for, when the server asked it to wait. */
export const waiting = signal("");

/** How often a request is retried after a 429 or 503, and the longest wait. */
const retries = 3;
const maxWaitSeconds = 30;

async function send(input: Request): Promise<Response> {
  await authorize(input.headers);
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(input.clone());
    const scope = res.headers.get("X-Query-Scope");
    const charge = res.headers.get("X-Request-Charge");
    if (scope || charge) {
      cost.value = { scope: scope ?? "", charge: charge ?? "" };
    }
    const wait = retryAfter(res);
    if (wait === null || attempt >= retries) {
      waiting.value = "";
      return res;
    }
    waiting.value = `The server is busy (${res.status}): retrying in ${wait} s, as it asked (Retry-After).`;
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  }
}

// retryAfter is the number of seconds a 429 or 503 asks to wait, null when
// the answer is another or asks for longer than the page waits.
function retryAfter(res: Response): number | null {
  if (res.status !== 429 && res.status !== 503) {
    return null;
  }
  const header = res.headers.get("Retry-After") ?? "";
  let seconds = Number(header);
  if (header === "" || Number.isNaN(seconds)) {
    const at = Date.parse(header);
    seconds = Number.isNaN(at) ? 1 : Math.ceil((at - Date.now()) / 1000);
  }
  seconds = Math.max(0, Math.ceil(seconds));
  return seconds > maxWaitSeconds ? null : seconds;
}

export const api = todoClient({ baseUrl: location.origin, fetch: send });

/** getRaw GETs a path outside the typed client (a tile's bytes) with the
 * caller's credentials, as the client sends them. */
export const getRaw = (path: string): Promise<Response> => send(new Request(location.origin + path));

/** A problem made of an answer that is not one (a network failure, a proxy's page). */
export function asProblem(error: unknown, res?: Response): Problem {
  if (error && typeof error === "object" && "title" in error) {
    const p = error as Problem;
    const wait = res?.headers.get("Retry-After");
    return wait ? { ...p, detail: `${p.detail} (the server asks to retry after ${wait} s)` } : p;
  }
  const status = res?.status ?? 0;
  return {
    type: "about:blank",
    title: status ? `Request failed (${status})` : "The server could not be reached",
    status,
    detail: error instanceof Error ? error.message : String(error ?? res?.statusText ?? ""),
  };
}

/** The entity tag of an answer, "" when it has none. */
export function etagOf(res: Response): string {
  return res.headers.get("ETag") ?? "";
}
