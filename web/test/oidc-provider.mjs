// A local OpenID provider for the entra sign-in test: discovery, a key set,
// an authorize endpoint that signs in whoever the test names and redirects
// back with a code, and a token endpoint that checks the PKCE code_verifier
// (RFC 7636, S256 only) before it returns RS256 tokens the handler accepts.
import { createServer } from 'node:http';
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

const b64url = (buf) => Buffer.from(buf).toString('base64url');

/**
 * startProvider listens on a free 127.0.0.1 port. audience is the aud of the
 * access tokens (the handler's AUTH_AUDIENCE). The returned provider's
 * issuer is the handler's AUTH_ISSUER; set provider.user (the oid, name and
 * roles of whoever signs in next) before the page goes to authorize.
 */
export async function startProvider({ audience }) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = b64url(randomBytes(8));
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
  const codes = new Map();
  const provider = {
    issuer: '',
    audience,
    user: { oid: 'entra-user', name: 'Entra User', roles: [] },
    /** What happened, for the tests to check. */
    log: { authorize: [], token: [], refused: [] },
    close: () => new Promise((ok) => { server.closeAllConnections(); server.close(() => ok()); }),
  };

  const jwt = (claims) => {
    const head = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid }));
    const body = b64url(JSON.stringify(claims));
    const sig = sign('sha256', Buffer.from(`${head}.${body}`), privateKey);
    return `${head}.${body}.${b64url(sig)}`;
  };

  /** accessToken mints what the token endpoint would give user, for
   * the tests' own API calls. */
  provider.accessToken = (user = provider.user) => {
    const now = Math.floor(Date.now() / 1000);
    return jwt({ iss: provider.issuer, aud: provider.audience, iat: now, nbf: now, exp: now + 3600,
      oid: user.oid, sub: user.oid, roles: user.roles ?? [] });
  };

  const cors = (req, res) => {
    // The page's origin calls discovery and the token endpoint with fetch.
    res.setHeader('Access-Control-Allow-Origin', req.headers.origin || '*');
    res.setHeader('Access-Control-Allow-Headers', 'Content-Type, Authorization');
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
  };
  const json = (res, status, value) => {
    res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
    res.end(JSON.stringify(value));
  };
  const refuse = (res, status, error, description) => {
    provider.log.refused.push({ error, description });
    json(res, status, { error, error_description: description });
  };

  const server = createServer(async (req, res) => {
    cors(req, res);
    const url = new URL(req.url, provider.issuer);
    if (req.method === 'OPTIONS') { res.writeHead(204); res.end(); return; }
    switch (`${req.method} ${url.pathname}`) {
      case 'GET /.well-known/openid-configuration':
        return json(res, 200, {
          issuer: provider.issuer,
          authorization_endpoint: `${provider.issuer}/authorize`,
          token_endpoint: `${provider.issuer}/token`,
          jwks_uri: `${provider.issuer}/keys`,
          userinfo_endpoint: `${provider.issuer}/userinfo`,
          end_session_endpoint: `${provider.issuer}/logout`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          code_challenge_methods_supported: ['S256'],
          scopes_supported: ['openid', 'profile', 'offline_access'],
          grant_types_supported: ['authorization_code', 'refresh_token'],
        });
      case 'GET /keys':
        return json(res, 200, { keys: [jwk] });
      case 'GET /authorize': {
        const q = Object.fromEntries(url.searchParams);
        provider.log.authorize.push(q);
        if (q.response_type !== 'code') return refuse(res, 400, 'unsupported_response_type', q.response_type);
        if (q.code_challenge_method !== 'S256' || !q.code_challenge) {
          return refuse(res, 400, 'invalid_request', 'PKCE with S256 is required');
        }
        if (!q.redirect_uri || !q.client_id) return refuse(res, 400, 'invalid_request', 'no redirect_uri or client_id');
        const code = b64url(randomBytes(16));
        codes.set(code, { ...q, user: provider.user });
        const back = new URL(q.redirect_uri);
        back.searchParams.set('code', code);
        if (q.state) back.searchParams.set('state', q.state);
        res.writeHead(302, { Location: back.toString() });
        return res.end();
      }
      case 'POST /token': {
        const form = new URLSearchParams(await readBody(req));
        const f = Object.fromEntries(form);
        provider.log.token.push(f);
        if (f.grant_type !== 'authorization_code') return refuse(res, 400, 'unsupported_grant_type', f.grant_type);
        const grant = codes.get(f.code);
        codes.delete(f.code); // a code is good once
        if (!grant) return refuse(res, 400, 'invalid_grant', 'unknown or used code');
        if (f.redirect_uri !== grant.redirect_uri) return refuse(res, 400, 'invalid_grant', 'redirect_uri differs');
        if (f.client_id && f.client_id !== grant.client_id) return refuse(res, 400, 'invalid_grant', 'client_id differs');
        const challenge = f.code_verifier && b64url(createHash('sha256').update(f.code_verifier).digest());
        if (challenge !== grant.code_challenge) return refuse(res, 400, 'invalid_grant', 'code_verifier does not match');
        const now = Math.floor(Date.now() / 1000);
        const { oid, name, roles } = grant.user;
        const common = { iss: provider.issuer, iat: now, nbf: now, exp: now + 3600, oid, sub: oid, name };
        const access = jwt({ ...common, aud: provider.audience, roles, scp: 'access_as_user', ver: '2.0' });
        const idToken = jwt({ ...common, aud: grant.client_id, nonce: grant.nonce, preferred_username: name });
        provider.log.token.at(-1).issued = true;
        return json(res, 200, {
          token_type: 'Bearer', access_token: access, id_token: idToken, expires_in: 3600,
          scope: grant.scope || 'openid',
        });
      }
      case 'GET /userinfo':
        return json(res, 200, { sub: provider.user.oid, name: provider.user.name });
      case 'GET /logout': {
        const back = url.searchParams.get('post_logout_redirect_uri');
        if (back) { res.writeHead(302, { Location: back }); return res.end(); }
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        return res.end('signed out');
      }
      default:
        res.writeHead(404); res.end();
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  provider.issuer = `http://127.0.0.1:${server.address().port}`;
  return provider;
}

function readBody(req) {
  return new Promise((ok, fail) => {
    let s = '';
    req.setEncoding('utf8');
    req.on('data', (d) => { s += d; if (s.length > 1 << 16) req.destroy(new Error('body too large')); });
    req.on('end', () => ok(s));
    req.on('error', fail);
  });
}
