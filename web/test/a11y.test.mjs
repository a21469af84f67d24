// Usable by everyone: create, edit and delete with the keyboard alone,
// focus visible on the way, no serious or critical axe-core violation in
// any view, light or dark, and a layout that fits a 360-pixel phone.
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { suite, uniqueUser, eventually, expectAccessible } from './harness.mjs';
import { TodoPage } from './todo-page.mjs';

const app = suite({ ADMIN_USERS: 'root' });

/** tabTo presses Tab until target has the focus, at most max times, and
 * checks that the focus is visible there. */
async function tabTo(page, target, max = 40) {
  for (let i = 0; i < max; i++) {
    if (await target.evaluate((el) => el === document.activeElement).catch(() => false)) {
      const ring = await target.evaluate((el) => {
        const s = getComputedStyle(el);
        const label = el.id && document.querySelector(`label[for="${el.id}"]`);
        const l = label && getComputedStyle(label);
        return { outline: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0,
          shadow: s.boxShadow !== 'none', label: !!l && l.outlineStyle !== 'none' && parseFloat(l.outlineWidth) > 0 };
      });
      assert.ok(ring.outline || ring.shadow || ring.label, 'the focus is visible');
      return;
    }
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${target}`);
}

async function seed(user, todos) {
  const made = [];
  for (const t of todos) {
    const res = await app.handler.api('POST', '/api/todos', { user, body: { category: 'Home', ...t } });
    assert.equal(res.status, 201, res.text);
    made.push(res.body);
  }
  return made;
}

describe('keyboard only', () => {
  app.test('create, complete, edit and delete without a mouse', async ({ page, idle }) => {
    const user = uniqueUser();
    const p = new TodoPage(page, app.url);
    await p.open(user);
    // .new-todo has the focus from the start (autofocus).
    assert.equal(await p.newTodo.evaluate((el) => el === document.activeElement), true);
    await page.keyboard.type('typed todo');
    await page.keyboard.press('Enter');
    await p.expectTitles(['typed todo']);
    await page.keyboard.type('second todo');
    await page.keyboard.press('Enter');
    await p.expectTitles(['typed todo', 'second todo']);

    const toggle = page.getByRole('checkbox', { name: 'Completed: typed todo' });
    await tabTo(page, toggle);
    await page.keyboard.press('Space');
    await eventually(async () => assert.equal(await toggle.isChecked(), true));

    await tabTo(page, page.getByRole('button', { name: 'Details of typed todo' }));
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Edit todo' });
    await dialog.waitFor();
    const title = dialog.getByRole('textbox', { name: 'Title' });
    await tabTo(page, title);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('renamed by keyboard');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    await p.expectTitles(['renamed by keyboard', 'second todo']);

    const destroy = page.getByRole('button', { name: 'Delete second todo' });
    await tabTo(page, destroy);
    await page.keyboard.press('Enter');
    await p.expectTitles(['renamed by keyboard']);

    await idle();
    const listed = await app.handler.api('GET', '/api/todos', { user });
    assert.deepEqual(listed.body.items.map((t) => [t.title, t.isCompleted]), [['renamed by keyboard', true]]);
  });

  app.test('a dialog closes with Escape and gives the focus back', async ({ page }) => {
    const user = uniqueUser();
    await seed(user, [{ title: 'one' }]);
    const p = new TodoPage(page, app.url);
    await p.open(user);
    const details = page.getByRole('button', { name: 'Details of one' });
    await tabTo(page, details);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Edit todo' });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await eventually(async () => assert.equal(await details.evaluate((el) => el === document.activeElement), true));
  });
});

describe('where the focus goes', () => {
  /** hasFocus waits until target has the focus. */
  const hasFocus = (target) => eventually(async () => assert.equal(await target.evaluate((el) => el === document.activeElement), true,
    `the focus is on ${target}, not on ${await target.page().evaluate(() => document.activeElement?.outerHTML.slice(0, 80))}`));

  app.test('after an edit, a delete and the edit panel\'s Save, never to the page\'s body', async ({ page }) => {
    const user = uniqueUser();
    await seed(user, [{ title: 'one' }, { title: 'two' }, { title: 'three' }]);
    const p = new TodoPage(page, app.url);
    await p.open(user);
    await p.expectTitles(['one', 'two', 'three']);

    let { input } = await p.edit('two');
    await input.fill('two edited');
    await input.press('Enter');
    await p.expectTitles(['one', 'two edited', 'three']);
    await hasFocus(page.getByRole('checkbox', { name: 'Completed: two edited' }));
    ({ input } = await p.edit('two edited'));
    await input.press('Escape');
    await hasFocus(page.getByRole('checkbox', { name: 'Completed: two edited' }));

    await tabTo(page, page.getByRole('button', { name: 'Delete two edited' }));
    await page.keyboard.press('Enter');
    await p.expectTitles(['one', 'three']);
    await hasFocus(page.getByRole('checkbox', { name: 'Completed: three' }));
    await tabTo(page, page.getByRole('button', { name: 'Delete three' }));
    await page.keyboard.press('Enter');
    await p.expectTitles(['one']);
    await hasFocus(page.getByRole('checkbox', { name: 'Completed: one' }));

    await tabTo(page, page.getByRole('button', { name: 'Details of one' }));
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Edit todo' });
    await dialog.getByRole('textbox', { name: 'Title' }).fill('one renamed');
    await dialog.getByRole('textbox', { name: 'Title' }).press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    await p.expectTitles(['one renamed']);
    await hasFocus(page.getByRole('button', { name: 'Details of one renamed' }));
    assert.equal(await page.getByRole('link', { name: 'History of one renamed' }).count(), 1, 'the history link names its todo');
    // A move gives the todo a new id and row: the focus goes to its Details.
    await page.keyboard.press('Enter');
    await dialog.getByLabel('Move to category').fill('Work');
    await dialog.getByLabel('Move to category').press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    await eventually(async () => assert.match(await p.item('one renamed').textContent(), /Work/));
    await hasFocus(page.getByRole('button', { name: 'Details of one renamed' }));

    ({ input } = await p.edit('one renamed'));
    await input.fill('');
    await input.press('Enter');
    await p.expectTitles([]);
    await hasFocus(p.newTodo);
  });
});

describe('axe-core', () => {
  app.test('the empty list', async ({ page }) => {
    const p = new TodoPage(page, app.url);
    await p.open(uniqueUser());
    await expectAccessible(page, 'the empty list');
  });

  app.test('the list under each filter, inline editing, and the edit panel', async ({ page }) => {
    const user = uniqueUser();
    await seed(user, [{ title: 'one', tags: ['home'], dueDate: '2030-01-02T00:00:00Z' }, { title: 'two', isCompleted: true }, { title: 'three' }]);
    const p = new TodoPage(page, app.url);
    await p.open(user);
    await eventually(async () => assert.equal(await p.items.count(), 3));
    for (const hash of ['#/', '#/active', '#/completed']) {
      await page.goto(`${app.url}/?user=${user}${hash}`);
      await eventually(async () => assert.equal(await page.locator('.filters a.selected').getAttribute('href'), hash));
      await expectAccessible(page, `the list at ${hash}`);
    }
    await page.goto(`${app.url}/?user=${user}#/`);
    await p.edit('one');
    await expectAccessible(page, 'inline editing');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Details of three' }).click();
    await page.getByRole('dialog', { name: 'Edit todo' }).waitFor();
    await expectAccessible(page, 'the edit panel');
  });

  app.test('the 412 dialog and an error alert', async ({ page }) => {
    const user = uniqueUser();
    const [one, two] = await seed(user, [{ title: 'one' }, { title: 'two' }]);
    const p = new TodoPage(page, app.url);
    await p.open(user);
    await eventually(async () => assert.equal(await p.items.count(), 2));
    const got = await app.handler.api('GET', `/api/todos/${encodeURIComponent(one.id)}`, { user });
    await app.handler.api('PUT', `/api/todos/${encodeURIComponent(one.id)}`, {
      user, headers: { 'If-Match': got.headers.get('etag') }, body: { category: 'Home', title: 'changed' },
    });
    const { input } = await p.edit('one');
    await input.fill('mine');
    await input.press('Enter');
    const dialog = page.getByRole('alertdialog', { name: 'Changed since you loaded it' });
    await dialog.waitFor();
    await expectAccessible(page, 'the 412 dialog');
    await dialog.getByRole('button', { name: 'Take theirs' }).click();
    await dialog.waitFor({ state: 'hidden' });

    // A todo deleted behind the page's back: the page says so in an alert.
    await app.handler.api('DELETE', `/api/todos/${encodeURIComponent(two.id)}`, { user });
    // click, not check: the page takes the deleted todo off the list.
    await p.item('two').locator('.toggle').click();
    await page.getByRole('alert').first().waitFor();
    await expectAccessible(page, 'an error alert');
  });

  app.test('the admin view', async ({ page }) => {
    const p = new TodoPage(page, app.url);
    await p.open('root');
    const admin = page.getByRole('link', { name: /admin/i }).first();
    await admin.click();
    await eventually(() => assert.match(page.url(), /#\/admin/));
    await page.waitForLoadState('networkidle', { timeout: 10_000 }).catch(() => {});
    await expectAccessible(page, 'the admin view');
  });

  app.test('dark mode', async ({ page }) => {
    const user = uniqueUser();
    await seed(user, [{ title: 'one' }, { title: 'two', isCompleted: true }]);
    const p = new TodoPage(page, app.url);
    await p.open(user);
    await eventually(async () => assert.equal(await p.items.count(), 2));
    await expectAccessible(page, 'the list, dark');
  }, { context: { colorScheme: 'dark' } });

  for (const colorScheme of ['light', 'dark']) {
    app.test(`a todo's history and a comparison, ${colorScheme}`, async ({ page }) => {
      const user = uniqueUser();
      const [todo] = await seed(user, [{ title: 'buy oat milk' }]);
      const path = `/api/todos/${encodeURIComponent(todo.id)}`;
      for (const title of ['buy oat milk, two litres', 'buy soy milk, two litres']) {
        const res = await app.handler.api('PATCH', path, { user, body: { title }, headers: { 'Content-Type': 'application/merge-patch+json' } });
        assert.equal(res.status, 200, res.text);
      }
      await eventually(async () => {
        const v = await app.handler.api('GET', `${path}/history/verify`, { user });
        assert.deepEqual([v.body?.logged, v.body?.pending], [3, 0]);
      }, 30_000);
      await page.goto(`${app.url}/?user=${user}#/todos/${encodeURIComponent(todo.id)}`);
      const versions = page.getByRole('list', { name: 'Versions' });
      await eventually(async () => assert.deepEqual(await versions.locator('.status').allTextContents(), ['Verified', 'Verified', 'Verified']));
      await expectAccessible(page, `the history, ${colorScheme}`);
      await versions.getByRole('listitem').first().getByRole('button', { name: 'Compare' }).click();
      await page.getByRole('region', { name: 'Comparison' }).waitFor();
      await expectAccessible(page, `the comparison, ${colorScheme}`);
    }, { context: { colorScheme } });
  }

  app.test('a 360-pixel phone: nothing wider than the screen', async ({ page }) => {
    const user = uniqueUser();
    await seed(user, [{ title: 'a todo with a rather long title that has to wrap on a small phone screen' }, { title: 'two' }]);
    const p = new TodoPage(page, app.url);
    await p.open(user);
    await eventually(async () => assert.equal(await p.items.count(), 2));
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 360, `the page is ${width} px wide`);
    await expectAccessible(page, 'the list on a phone');
  }, { context: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } });
});

describe('non-admin', () => {
  app.test('no admin entry for a user who is not an admin', async ({ page }) => {
    const p = new TodoPage(page, app.url);
    await p.open(uniqueUser());
    assert.equal(await page.getByRole('link', { name: /admin/i }).count(), 0);
  });
});
