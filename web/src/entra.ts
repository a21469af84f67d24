// Sign-in with Microsoft Entra ID (or any OpenID provider): the
// authorization-code flow with PKCE through oidc-client-ts. This module is
// imported only in entra mode, so its library is a chunk of its own.
import { UserManager, WebStorageStateStore } from "oidc-client-ts";
import type { Identity } from "./auth";
import type { PageConfig } from "./config";

export interface Session {
  identity: Identity;
  /** The current access token, "" when there is none. */
  token(): Promise<string>;
}

/** The app role that makes a user an admin. */
const adminRole = "Todo.Admin";

export async function start(cfg: PageConfig): Promise<Session> {
  const manager = new UserManager({
    authority: cfg.authority ?? "",
    client_id: cfg.clientId ?? "",
    redirect_uri: location.origin + "/",
    post_logout_redirect_uri: location.origin + "/",
    response_type: "code",
    scope: ["openid", "profile", cfg.scope].filter(Boolean).join(" "),
    userStore: new WebStorageStateStore({ store: sessionStorage }),
    automaticSilentRenew: false,
  });
  const params = new URLSearchParams(location.search);
  if (params.has("code") && params.has("state")) {
    // Back from the provider: the code becomes tokens, the URL loses it,
    // and the route the user signed in from comes back.
    const back = await manager.signinRedirectCallback();
    const hash = typeof back.state === "string" ? back.state : "";
    history.replaceState(null, "", location.pathname + hash);
  }
  const user = await manager.getUser();
  const signInNow = () => void manager.signinRedirect({ state: location.hash });
  if (!user || user.expired) {
    return { identity: { user: "", admin: false, signIn: signInNow }, token: async () => "" };
  }
  const claims = user.profile;
  const roles = (claims["roles"] as string[] | undefined) ?? [];
  const name = String(claims.name ?? claims.preferred_username ?? claims.sub);
  return {
    identity: {
      user: name,
      admin: roles.includes(adminRole) || accessRoles(user.access_token).includes(adminRole),
      signOut: () => {
        void manager.removeUser().then(() => location.assign("/"));
      },
    },
    token: async () => {
      const current = await manager.getUser();
      if (!current || current.expired) {
        signInNow();
        return "";
      }
      return current.access_token;
    },
  };
}

// accessRoles are the roles of an access token that is a JWT (Entra puts
// app roles there), none when it is opaque.
function accessRoles(token: string): string[] {
  try {
    const payload = JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")));
    return Array.isArray(payload.roles) ? payload.roles : [];
  } catch {
    return [];
  }
}
