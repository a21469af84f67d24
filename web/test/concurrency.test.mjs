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

/** editInPage renames the todo in the page (double-click, type, Enter). */
async function editInPage(p, from, to) {
  const { input } = await p.edit(from);
  await input.fill(to);
  await input.press('Enter');
}

/** writesOf collects the If-Match header of every write the page sends
 * to a todo, and its answer's status. */
function writesOf(page) {
  const writes = [];
  page.on('response', (res) => {
    const r = res.request();
    if (['PUT', 'PATCH'].includes(r.method()) && new URL(r.url()).pathname.startsWith('/api/todos/')) {
      writes.push({ ifMatch: r.headers()['if-match'], status: res.status() });
    }
  });
  return writes;
}

const unquoted = (etag) => (etag ?? '').replace(/^W\//, '').replace(/"/g, '');

describe('412: changed since the page loaded it', () => {
  app.test('keep mine sends mine again with the server\'s new ETag', async ({ page, idle }) => {
    // The todo is made in the page, so the page holds its ETag and its
    // first write meets the server's 412.
    const user = uniqueUser();
    const p = new TodoPage(page, app.url);
    await p.open(user);
    await p.add('original');
    await idle();
    const [todo] = (await app.handler.api('GET', '/api/todos', { user })).body.items;
    const before = await app.handler.api('GET', `/api/todos/${encodeURIComponent(todo.id)}`, { user });
    await changeBehindTheBack(user, todo, before.headers.get('etag'), 'theirs');
    const now = await app.handler.api('GET', `/api/todos/${encodeURIComponent(todo.id)}`, { user });
    const writes = writesOf(page);
    await editInPage(p, 'original', 'mine');

    const dialog = page.getByRole('alertdialog', { name: 'Changed since you loaded it' });
    await dialog.waitFor();
    const text = await dialog.textContent();
    assert.match(text, /theirs/, 'the server version is shown');
    assert.match(text, /mine/, 'the user version is shown');
    assert.deepEqual(writes.map((w) => w.status), [412], 'the stale write was refused');
    assert.equal(unquoted(writes[0].ifMatch), unquoted(before.headers.get('etag')), 'with the ETag the page had');

    await dialog.getByRole('button', { name: 'Keep mine' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await p.expectTitles(['mine']);
    await idle();
    assert.equal(await serverTitle(user, todo.id), 'mine');
    assert.equal(writes.length, 2, 'one write again');
    assert.equal(unquoted(writes[1].ifMatch), unquoted(now.headers.get('etag')), 'with the server\'s new ETag');
  });

  app.test('take theirs shows the server version and writes nothing', async ({ page, idle }) => {
    const { p, user, todo, etag } = await loaded(page, 'original');
    await changeBehindTheBack(user, todo, etag, 'theirs');
    const writes = writesOf(page);
    await editInPage(p, 'original', 'mine');

    const dialog = page.getByRole('alertdialog', { name: 'Changed since you loaded it' });
    await dialog.waitFor();
    assert.match(await dialog.textContent(), /theirs[\s\S]*mine|mine[\s\S]*theirs/, 'both versions shown');
    const refused = writes.length;
    assert.ok(writes.every((w) => w.status === 412 && w.ifMatch), 'no write got through; each sent If-Match');
    await dialog.getByRole('button', { name: 'Take theirs' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await p.expectTitles(['theirs']);
    await idle();
    assert.equal(await serverTitle(user, todo.id), 'theirs');
    assert.equal(writes.length, refused, 'nothing written after taking theirs');
  });
});

describe('more than one 412 at once', () => {
  app.test('toggle-all over two todos changed elsewhere offers each conflict, and the list ends as the server holds it', async ({ page, idle }) => {
    const user = uniqueUser();
    const made = [];
    for (const title of ['one', 'two']) {
      const res = await app.handler.api('POST', '/api/todos', { user, body: { category: 'Home', title } });
      assert.equal(res.status, 201, res.text);
      made.push(res);
    }
    const p = new TodoPage(page, app.url);
    await p.open(user);
    await p.expectTitles(['one', 'two']);
    for (const res of made) await changeBehindTheBack(user, res.body, res.headers.get('etag'), `${res.body.title} renamed`);

    await p.toggleAll.click(); // the transparent checkbox laid over its label
    const dialog = page.getByRole('alertdialog', { name: 'Changed since you loaded it' });
    const offered = [];
    for (let i = 0; i < 2; i++) {
      await dialog.waitFor();
      const detail = await dialog.locator('#conflict-detail').textContent();
      offered.push(detail.match(/"([^"]+)"/)[1]);
      await dialog.getByRole('button', { name: 'Keep mine' }).click();
    }
    await dialog.waitFor({ state: 'hidden' });
    assert.deepEqual(offered.sort(), ['one', 'two'], 'each refused todo is offered');
    await p.expectTitles(['one renamed', 'two renamed']);
    await p.expectCount('0 items left');
    await idle();
    const listed = await app.handler.api('GET', '/api/todos', { user });
    assert.deepEqual(listed.body.items.map((t) => [t.title, t.isCompleted]).sort(), [['one renamed', true], ['two renamed', true]]);
  });
});

describe('what the messages call a todo', () => {
  app.test('the title the server had, not the one typed and refused', async ({ page }) => {
    const { p, user, todo, etag } = await loaded(page, 'original');
    await changeBehindTheBack(user, todo, etag, 'theirs');
    await editInPage(p, 'original', 'mine');
    const dialog = page.getByRole('alertdialog', { name: 'Changed since you loaded it' });
    await dialog.waitFor();
    assert.match(await dialog.locator('#conflict-detail').textContent(), /^\s*"original" is at version 2/);
    await dialog.getByRole('button', { name: 'Take theirs' }).click();
    await p.expectTitles(['theirs']);

    const gone = await app.handler.api('DELETE', `/api/todos/${encodeURIComponent(todo.id)}`, { user });
    assert.equal(gone.status, 204, gone.text);
    await editInPage(p, 'theirs', 'mine again');
    const alert = page.getByRole('alert').filter({ hasText: 'deleted' });
    await alert.waitFor();
    assert.match(await alert.textContent(), /"theirs" was deleted[\s\S]*Not saved: title "mine again"/, 'and what was typed is kept');
  });
});

describe('409: moved away', () => {
  /** movedThenEdited moves a todo through the API behind the page's back,
   * then edits it in the page; it returns the move's answer. */
  async function movedThenEdited(page, typed) {
    const { p, user, todo } = await loaded(page, 'to be moved');
    const moved = await app.handler.api('POST', `/api/todos/${encodeURIComponent(todo.id)}/move`, {
      user, body: { category: 'Work' },
    });
    assert.equal(moved.status, 201, moved.text);
    await editInPage(p, 'to be moved', typed);
    return moved.body;
  }

  app.test('an edit of a todo moved elsewhere says where it went', async ({ page }) => {
    const now = await movedThenEdited(page, 'edited after the move');
    const alert = page.getByRole('alert').filter({ hasText: now.id });
    await eventually(async () => assert.equal(await alert.count(), 1, 'an alert names the new id'));
    assert.match(await alert.textContent(), /moved/i);
    assert.match(await alert.textContent(), /Work/, 'and the new category');
  });

  app.test('the text typed survives the 409', async ({ page }) => {
    await movedThenEdited(page, 'edited after the move');
    await page.getByRole('alert').first().waitFor();
    // Nothing the user typed is lost: it is still on the page, in an
    // input or in the list.
    const onPage = await page.evaluate(() => [...document.querySelectorAll('input, textarea')]
      .map((el) => el.value).concat(document.body.innerText).join('\n'));
    assert.match(onPage, /edited after the move/);
  });
});
