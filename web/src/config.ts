// The page's configuration, served by the handler at /config.json from its
// own settings: how users sign in, and under entra where and as whom.
export type AuthMode = "dev" | "single" | "easyauth" | "entra";

export interface PageConfig {
  authMode: AuthMode;
  /** The one user under single. */
  user?: string;
  /** The admins under dev. */
  adminUsers?: string[];
  /** entra: the OpenID provider, the page's client id and the scope it asks for. */
  authority?: string;
  clientId?: string;
  scope?: string;
}

export async function loadConfig(): Promise<PageConfig> {
  const res = await fetch("/config.json", { headers: { Accept: "application/json" } });
  if (!res.ok) {
    throw new Error(`the page's configuration did not load: ${res.status}`);
  }
  return (await res.json()) as PageConfig;
}
