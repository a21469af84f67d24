// Concurrency the way the API means it: the page sends If-Match, a 412
// shows both versions and lets the user keep theirs or take the server's,
// a 409 for a moved todo says where it went, and what the user typed is
// not lost.
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { suite, uniqueUser, eventually } from './harness.mjs';
import { TodoPage } from './todo-page.mjs';

const app = suite();

/** loaded creates a todo through the API and opens the page on it. */
async function loaded(page, title) {
  const user = uniqueUser();
  const made = await app.handler.api('POST', '/api/todos', { user, body: { category: 'Home', title } });
  assert.equal(made.status, 201, made.text);
  const p = new TodoPage(page, app.url);
  await p.open(user);
  await p.expectTitles([title]);
  return { p, user, todo: made.body, etag: made.headers.get('etag') };
}

/** changeBehindTheBack changes the todo's title through the API. */
async function changeBehindTheBack(user, todo, etag, title) {
  const res = await app.handler.api('PUT', `/api/todos/${encodeURIComponent(todo.id)}`, {
    user, headers: { 'If-Match': etag }, body: { category: todo.category, title },
  });
  assert.equal(res.status, 200, res.text);
}

async function serverTitle(user, id) {
  const res = await app.handler.api('GET', `/api/todos/${encodeURIComponent(id)}`, { user });
  assert.equal(res.status, 200, res.text);
  return res.body.title;
}

/** editInPage renames the todo in the page and collects the If-Match
 * headers its writes send. */
async function editInPage(p, from, to) {
  const ifMatch = [];
  p.page.on('request', (r) => {
    if (['PUT', 'PATCH'].includes(r.method()) && new URL(r.url()).pathname.startsWith('/api/todos/')) {
      ifMatch.push(r.headers()['if-match']);
    }
  });
  const { input } = await p.edit(from);
  await input.fill(to);
  await input.press('Enter');
  return ifMatch;
}

describe('412: changed since the page loaded it', () => {
  app.test('keep mine sends mine again with the new ETag', async ({ page, idle }) => {
    const { p, user, todo, etag } = await loaded(page, 'original');
    await changeBehindTheBack(user, todo, etag, 'theirs');
    const ifMatch = await editInPage(p, 'original', 'mine');

    const dialog = page.getByRole('alertdialog', { name: 'Changed since you loaded it' });
    await dialog.waitFor();
    const text = await dialog.textContent();
    assert.match(text, /theirs/, 'the server version is shown');
    assert.match(text, /mine/, 'the user version is shown');
    assert.ok(ifMatch[0], 'the first write sent If-Match');
    assert.equal(ifMatch[0].replace(/"/g, ''), etag.replace(/"/g, ''), 'with the ETag the page loaded');

    await dialog.getByRole('button', { name: 'Keep mine' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await p.expectTitles(['mine']);
    await idle();
    assert.equal(await serverTitle(user, todo.id), 'mine');
    assert.equal(ifMatch.length, 2, 'one write again');
    assert.notEqual(ifMatch[1].replace(/"/g, ''), etag.replace(/"/g, ''), 'with the newer ETag');
  });

  app.test('take theirs shows the server version and writes nothing', async ({ page, idle }) => {
    const { p, user, todo, etag } = await loaded(page, 'original');
    await changeBehindTheBack(user, todo, etag, 'theirs');
    const ifMatch = await editInPage(p, 'original', 'mine');

    const dialog = page.getByRole('alertdialog', { name: 'Changed since you loaded it' });
    await dialog.getByRole('button', { name: 'Take theirs' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await p.expectTitles(['theirs']);
    await idle();
    assert.equal(await serverTitle(user, todo.id), 'theirs');
    assert.equal(ifMatch.length, 1, 'no second write');
  });
});

describe('409: moved away', () => {
  app.test('an edit of a todo moved elsewhere says where it went and keeps the text', async ({ page }) => {
    const { p, user, todo } = await loaded(page, 'to be moved');
    const moved = await app.handler.api('POST', `/api/todos/${encodeURIComponent(todo.id)}/move`, {
      user, body: { category: 'Work' },
    });
    assert.equal(moved.status, 201, moved.text);
    await editInPage(p, 'to be moved', 'edited after the move');

    const alert = page.getByRole('alert').filter({ hasText: moved.body.id });
    await eventually(async () => assert.equal(await alert.count(), 1, 'an alert names the new id'));
    const text = await alert.textContent();
    assert.match(text, /moved/i);
    // Nothing the user typed is lost: it is still on the page, in the
    // editor or the list.
    const onPage = await page.evaluate(() => [...document.querySelectorAll('input, textarea')]
      .map((el) => el.value).concat(document.body.innerText).join('\n'));
    assert.match(onPage, /edited after the move/);
  });
});
