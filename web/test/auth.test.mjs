// Who the user is, in every auth mode: dev's ?user= and user switcher,
// single's one user, easyauth's platform session, and entra's
// authorization code + PKCE against a local OpenID provider.
import assert from 'node:assert/strict';
import { describe, after } from 'node:test';
import { suite, uniqueUser, eventually } from './harness.mjs';
import { TodoPage } from './todo-page.mjs';
import { startProvider } from './oidc-provider.mjs';

/** control finds a link or button by name: the contract says link, a
 * button that navigates serves the user as well. */
function control(page, name) {
  return page.getByRole('link', { name }).or(page.getByRole('button', { name }));
}

/** navigationTo clicks and returns the URL of the first request to a
 * path under prefix, which is answered with a blank page. */
async function navigationTo(context, prefix, click) {
  let seen;
  await context.route((url) => url.pathname.startsWith(prefix), (route) => {
    seen ??= new URL(route.request().url());
    return route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>platform</title>' });
  });
  await click();
  await eventually(() => assert.ok(seen, `a navigation to ${prefix}`));
  return seen;
}

describe('dev', () => {
  const app = suite({ AUTH_MODE: 'dev' });

  app.test('?user= picks the user, and the switcher changes it', async ({ page }) => {
    const alice = uniqueUser('alice');
    const bob = uniqueUser('bob');
    for (const [user, title] of [[alice, 'alice todo'], [bob, 'bob todo']]) {
      const res = await app.handler.api('POST', '/api/todos', { user, body: { category: 'Home', title } });
      assert.equal(res.status, 201, res.text);
    }
    const p = new TodoPage(page, app.url);
    await p.open(alice);
    await p.expectTitles(['alice todo']);

    const who = page.getByRole('combobox', { name: 'User' }).or(page.getByRole('textbox', { name: 'User' }));
    await who.fill(bob);
    await page.getByRole('button', { name: 'Switch user' }).click();
    await p.expectTitles(['bob todo']);
    assert.equal(new URL(page.url()).searchParams.get('user'), bob, 'the URL names the user');
    await page.reload();
    await p.expectTitles(['bob todo']);
  });

  app.test('without ?user= the page is the default user\'s', async ({ page, idle }) => {
    const p = new TodoPage(page, app.url);
    await p.open();
    const title = `local ${uniqueUser()}`;
    await p.add(title);
    await idle();
    const listed = await app.handler.api('GET', '/api/todos', {});
    assert.ok(listed.body.items.some((t) => t.title === title), 'stored for the default user');
  });
});

describe('single', () => {
  const app = suite({ AUTH_MODE: 'single', SINGLE_USER_ID: 'owner' });

  app.test('the one user, and no switcher', async ({ page, idle }) => {
    const p = new TodoPage(page, app.url);
    await p.open();
    assert.equal(await page.getByRole('button', { name: 'Switch user' }).count(), 0);
    await p.add('the owner\'s todo');
    await idle();
    const listed = await app.handler.api('GET', '/api/todos', {});
    assert.deepEqual(listed.body.items.map((t) => t.title), ['the owner\'s todo']);
    await page.reload();
    await p.expectTitles(['the owner\'s todo']);
  });
});

describe('easyauth', () => {
  const app = suite({ AUTH_MODE: 'easyauth' });
  const objectID = 'http://schemas.microsoft.com/identity/claims/objectidentifier';

  /** signedIn plays App Service Authentication for the context: /.auth/me
   * answers the session, and the API gets the principal headers the
   * platform would add. */
  async function signedIn(context, oid) {
    const claims = [{ typ: objectID, val: oid }, { typ: 'name', val: 'Easy User' }];
    const principal = Buffer.from(JSON.stringify({
      auth_typ: 'aad', claims, name_typ: 'name', role_typ: 'roles',
    })).toString('base64');
    await context.route('**/.auth/me', (route) => route.fulfill({
      status: 200, contentType: 'application/json',
      body: JSON.stringify([{ provider_name: 'aad', user_id: 'easy@example.com', user_claims: claims }]),
    }));
    await context.route('**/api/**', (route) => route.continue({
      headers: { ...route.request().headers(), 'x-ms-client-principal-id': oid, 'x-ms-client-principal': principal },
    }));
    return { 'X-MS-CLIENT-PRINCIPAL-ID': oid, 'X-MS-CLIENT-PRINCIPAL': principal };
  }

  app.test('without a session: sign in goes to /.auth/login/aad', async ({ page, context }) => {
    await context.route('**/.auth/me', (route) => route.fulfill({ status: 401, body: '' }));
    await page.goto(app.url + '/');
    const signIn = control(page, 'Sign in');
    await signIn.waitFor();
    const to = await navigationTo(context, '/.auth/login/aad', () => signIn.click());
    assert.equal(to.origin, app.url);
    assert.ok(to.searchParams.get('post_login_redirect_uri')?.startsWith('/'), 'back to the page after sign-in');
  });

  app.test('with a session: the user\'s todos, and sign out', async ({ page, context, idle }) => {
    const oid = uniqueUser('easy');
    const headers = await signedIn(context, oid);
    const made = await app.handler.api('POST', '/api/todos', { headers, body: { category: 'Home', title: 'easy todo' } });
    assert.equal(made.status, 201, made.text);
    const p = new TodoPage(page, app.url);
    await page.goto(app.url + '/');
    await p.expectTitles(['easy todo']);
    await p.add('made in the page');
    await idle();
    const listed = await app.handler.api('GET', '/api/todos', { headers });
    assert.deepEqual(listed.body.items.map((t) => t.title).sort(), ['easy todo', 'made in the page']);
    const to = await navigationTo(context, '/.auth/logout', () => control(page, 'Sign out').click());
    assert.equal(to.origin, app.url);
  });
});

describe('entra', () => {
  const audience = 'api://todo-web-test';
  const clientId = 'todo-web-spa';
  let provider;
  const app = suite(async () => {
    provider = await startProvider({ audience });
    return { AUTH_MODE: 'entra', AUTH_ISSUER: provider.issuer, AUTH_AUDIENCE: audience, AUTH_CLIENT_ID: clientId };
  });
  after(() => provider?.close());

  app.test('signs in with authorization code and PKCE at the local provider', async ({ page, idle }) => {
    const oid = uniqueUser('entra');
    provider.user = { oid, name: 'Entra User', roles: [] };
    const token = provider.accessToken();
    const headers = { Authorization: `Bearer ${token}` };
    const made = await app.handler.api('POST', '/api/todos', { headers, body: { category: 'Home', title: 'entra todo' } });
    assert.equal(made.status, 201, made.text);

    await page.goto(app.url + '/');
    await control(page, 'Sign in').click();
    const p = new TodoPage(page, app.url);
    await p.expectTitles(['entra todo']);

    const auth = provider.log.authorize.at(-1);
    assert.equal(auth.client_id, clientId);
    assert.equal(auth.code_challenge_method, 'S256');
    assert.equal(new URL(auth.redirect_uri).origin, app.url);
    assert.ok(provider.log.token.some((t) => t.issued && t.code_verifier), 'a code exchanged with its verifier');
    assert.deepEqual(provider.log.refused, []);

    await p.add('made in the page');
    await idle();
    const listed = await app.handler.api('GET', '/api/todos', { headers });
    assert.deepEqual(listed.body.items.map((t) => t.title).sort(), ['entra todo', 'made in the page']);
    // The session outlives a reload.
    await page.reload();
    await eventually(async () => assert.deepEqual((await p.titles()).sort(), ['entra todo', 'made in the page']));
  });
});
