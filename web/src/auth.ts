// Who the user is, in each auth mode, and what every API request carries
// to say so. dev: ?user=NAME in the URL (X-User-Id); single: the handler's
// one user; easyauth: the platform's session cookie (/.auth/me); entra: an
// access token from the authorization-code flow with PKCE, whose library
// is loaded only in that mode.
import { signal } from "@preact/signals";
import type { PageConfig } from "./config";

export interface Identity {
  /** The user's id or name, "" while nobody is signed in. */
  user: string;
  admin: boolean;
  /** Where to sign in, when the mode has sign-in and nobody is signed in. */
  signIn?: () => void;
  /** How to sign out, when the mode has a session. */
  signOut?: () => void;
}

export const identity = signal<Identity>({ user: "", admin: false });

/** The default user of dev mode, the handler's own default. */
export const devDefaultUser = "local";

// headers adds the caller's credentials to an API request.
let headers: (h: Headers) => Promise<void> = async () => {};

export function authorize(h: Headers): Promise<void> {
  return headers(h);
}

/** The user named in the URL (dev mode), or the default one. */
export function urlUser(): string {
  return new URLSearchParams(location.search).get("user")?.trim() || devDefaultUser;
}

/** Switches dev mode's user by changing ?user= in the URL, keeping the route. */
export function switchUser(name: string): void {
  const url = new URL(location.href);
  url.searchParams.set("user", name.trim() || devDefaultUser);
  location.assign(url.toString());
}

export async function signIn(cfg: PageConfig): Promise<void> {
  switch (cfg.authMode) {
    case "dev": {
      const user = urlUser();
      identity.value = { user, admin: (cfg.adminUsers ?? []).includes(user) };
      headers = async (h) => h.set("X-User-Id", user);
      return;
    }
    case "single":
      identity.value = { user: cfg.user ?? "", admin: false };
      return;
    case "easyauth":
      identity.value = await easyAuthIdentity();
      return;
    case "entra": {
      const entra = await import("./entra");
      const session = await entra.start(cfg);
      identity.value = session.identity;
      headers = async (h) => {
        const token = await session.token();
        if (token) h.set("Authorization", "Bearer " + token);
      };
      return;
    }
  }
}

interface EasyAuthClaim {
  typ: string;
  val: string;
}

interface EasyAuthIdentity {
  user_id?: string;
  user_claims?: EasyAuthClaim[];
}

const easyAuthSignIn = () => location.assign("/.auth/login/aad?post_login_redirect_uri=" + encodeURIComponent(location.pathname + location.search + location.hash));
const easyAuthSignOut = () => location.assign("/.auth/logout?post_logout_redirect_uri=/");

// easyAuthIdentity reads the platform's session: /.auth/me lists the
// signed-in identities, none (or 401) without a session.
async function easyAuthIdentity(): Promise<Identity> {
  const res = await fetch("/.auth/me", { headers: { Accept: "application/json" } });
  const ids: EasyAuthIdentity[] = res.ok ? await res.json() : [];
  const me = ids[0];
  if (!me) {
    return { user: "", admin: false, signIn: easyAuthSignIn };
  }
  const claims = me.user_claims ?? [];
  const name = claims.find((c) => c.typ === "name")?.val ?? me.user_id ?? "";
  const admin = claims.some((c) => (c.typ === "roles" || c.typ.endsWith("/role")) && c.val === "Todo.Admin");
  return { user: name, admin, signOut: easyAuthSignOut };
}
