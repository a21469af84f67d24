// The API's TypeScript client: openapi-fetch typed by the paths that
// openapi-typescript generates from openapi.json (schema.d.ts).
import createClient, { type ClientOptions } from "openapi-fetch";
import type { paths } from "./schema";

export type { components, operations, paths } from "./schema";

/** A client of the todo API at baseUrl (default: this origin). */
export function todoClient(options: ClientOptions = {}) {
  return createClient<paths>(options);
}
