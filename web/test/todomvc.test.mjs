// TodoMVC's behaviours, after its application specification (app-spec.md)
// and the intent of its own browser tests: the page must behave as every
// TodoMVC app does, with the API as its storage.
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { suite, uniqueUser, eventually } from './harness.mjs';
import { TodoPage } from './todo-page.mjs';

const app = suite();

/** fresh opens the page for a new user, with nothing listed. */
async function fresh(page, hash = '') {
  const p = new TodoPage(page, app.url);
  p.user = uniqueUser();
  await p.open(p.user, hash);
  return p;
}

describe('no todos', () => {
  app.test('hides the main section and the footer', async ({ page }) => {
    const p = await fresh(page);
    assert.equal(await p.items.count(), 0);
    assert.equal(await p.main.isVisible(), false);
    assert.equal(await p.footer.isVisible(), false);
  });
});

describe('new todo', () => {
  app.test('Enter adds todos in order, clears the input, shows main and footer', async ({ page }) => {
    const p = await fresh(page);
    await p.add('buy some cheese');
    assert.equal(await p.newTodo.inputValue(), '');
    await p.add('feed the cat', 'book a doctors appointment');
    await p.expectTitles(['buy some cheese', 'feed the cat', 'book a doctors appointment']);
    assert.equal(await p.main.isVisible(), true);
    assert.equal(await p.footer.isVisible(), true);
    assert.equal(await p.newTodo.evaluate((el) => el === document.activeElement), true, 'the input keeps the focus');
  });

  app.test('trims the title', async ({ page }) => {
    const p = await fresh(page);
    await p.add('   buy some cheese    ');
    await p.expectTitles(['buy some cheese']);
  });

  app.test('refuses an empty or blank title', async ({ page, idle }) => {
    const p = await fresh(page);
    for (const blank of ['', '    ']) {
      await p.newTodo.fill(blank);
      await p.newTodo.press('Enter');
    }
    await idle();
    assert.equal(await p.items.count(), 0);
    const listed = await app.handler.api('GET', '/api/todos', { user: p.user });
    assert.deepEqual(listed.body.items, [], 'nothing stored');
  });
});

describe('mark all as complete', () => {
  app.test('completes every todo, then clears them all', async ({ page }) => {
    const p = await fresh(page);
    await p.add('one', 'two', 'three');
    await p.setAll(true);
    await eventually(async () => assert.equal(await page.locator('.todo-list li.completed').count(), 3));
    await p.setAll(false);
    await eventually(async () => assert.equal(await page.locator('.todo-list li.completed').count(), 0));
  });

  app.test('follows the todos checked one by one', async ({ page }) => {
    const p = await fresh(page);
    await p.add('one', 'two');
    await p.setAll(true);
    await eventually(async () => assert.equal(await p.toggleAll.isChecked(), true));
    await p.item('one').locator('.toggle').uncheck();
    await eventually(async () => assert.equal(await p.toggleAll.isChecked(), false));
    await p.item('one').locator('.toggle').check();
    await eventually(async () => assert.equal(await p.toggleAll.isChecked(), true));
  });
});

describe('item', () => {
  app.test('a checkbox marks a todo complete and back', async ({ page, idle }) => {
    const p = await fresh(page);
    await p.add('one', 'two');
    await p.item('one').locator('.toggle').check();
    await eventually(async () => assert.deepEqual(await itemClasses(p), [true, false]));
    await p.item('two').locator('.toggle').check();
    await eventually(async () => assert.deepEqual(await itemClasses(p), [true, true]));
    await p.item('one').locator('.toggle').uncheck();
    await eventually(async () => assert.deepEqual(await itemClasses(p), [false, true]));
    await idle();
    const listed = await app.handler.api('GET', '/api/todos', { user: p.user });
    assert.deepEqual(listed.body.items.map((t) => [t.title, t.isCompleted]).sort(), [['one', false], ['two', true]]);
  });

  app.test('hovering shows the destroy button, which deletes', async ({ page, idle }) => {
    const p = await fresh(page);
    await p.add('one', 'two');
    const li = p.item('one');
    await li.hover();
    assert.equal(await li.locator('.destroy').isVisible(), true);
    await li.locator('.destroy').click();
    await p.expectTitles(['two']);
    await idle();
    const listed = await app.handler.api('GET', '/api/todos', { user: p.user });
    assert.deepEqual(listed.body.items.map((t) => t.title), ['two']);
  });
});

/** completedByTitle maps each listed title to whether it is .completed. */
async function completedByTitle(p) {
  const titles = await p.titles();
  const done = await itemClasses(p);
  return Object.fromEntries(titles.map((t, i) => [t, done[i]]));
}

/** itemClasses says, for each listed todo, whether it is .completed. */
function itemClasses(p) {
  return p.items.evaluateAll((lis) => lis.map((li) => li.classList.contains('completed')));
}

describe('editing', () => {
  app.test('double-click edits, focused, with the other controls hidden', async ({ page }) => {
    const p = await fresh(page);
    await p.add('one', 'two');
    const { li, input } = await p.edit('two');
    assert.match(await li.getAttribute('class'), /\bediting\b/);
    assert.equal(await input.inputValue(), 'two');
    assert.equal(await input.evaluate((el) => el === document.activeElement), true, 'the edit input has the focus');
    assert.equal(await li.locator('.toggle').isVisible(), false);
    assert.equal(await li.locator('.view label').isVisible(), false);
    assert.equal(await li.locator('.destroy').isVisible(), false);
  });

  app.test('Enter saves, trimmed', async ({ page, idle }) => {
    const p = await fresh(page);
    await p.add('one', 'two', 'three');
    const { input } = await p.edit('two');
    await input.fill('   buy some sausages   ');
    await input.press('Enter');
    await p.expectTitles(['one', 'buy some sausages', 'three']);
    assert.equal(await page.locator('.todo-list li.editing').count(), 0);
    await idle();
    const listed = await app.handler.api('GET', '/api/todos', { user: p.user });
    assert.ok(listed.body.items.some((t) => t.title === 'buy some sausages'), 'saved on the server');
  });

  app.test('blur saves', async ({ page }) => {
    const p = await fresh(page);
    await p.add('one', 'two');
    const { input } = await p.edit('two');
    await input.fill('buy some sausages');
    await input.evaluate((el) => el.blur());
    await p.expectTitles(['one', 'buy some sausages']);
    assert.equal(await page.locator('.todo-list li.editing').count(), 0);
  });

  app.test('Escape cancels', async ({ page, idle }) => {
    const p = await fresh(page);
    await p.add('one', 'two');
    const { input } = await p.edit('two');
    await input.fill('something else');
    await input.press('Escape');
    await p.expectTitles(['one', 'two']);
    assert.equal(await page.locator('.todo-list li.editing').count(), 0);
    await idle();
    const listed = await app.handler.api('GET', '/api/todos', { user: p.user });
    assert.deepEqual(listed.body.items.map((t) => t.title).sort(), ['one', 'two']);
  });

  app.test('an emptied title deletes the todo', async ({ page, idle }) => {
    const p = await fresh(page);
    await p.add('one', 'two');
    const { input } = await p.edit('two');
    await input.fill('   ');
    await input.press('Enter');
    await p.expectTitles(['one']);
    await idle();
    const listed = await app.handler.api('GET', '/api/todos', { user: p.user });
    assert.deepEqual(listed.body.items.map((t) => t.title), ['one']);
  });
});

describe('counter', () => {
  app.test('counts the active todos, pluralised, the number in <strong>', async ({ page }) => {
    const p = await fresh(page);
    await p.add('one');
    await p.expectCount('1 item left');
    assert.equal(await p.count.locator('strong').textContent(), '1');
    await p.add('two');
    await p.expectCount('2 items left');
    await p.setAll(true);
    await p.expectCount('0 items left');
  });
});

describe('clear completed', () => {
  app.test('shows only with completed todos, removes them, unchecks toggle-all', async ({ page, idle }) => {
    const p = await fresh(page);
    await p.add('one', 'two', 'three');
    assert.equal(await p.clearCompleted.isVisible(), false);
    await p.item('two').locator('.toggle').check();
    await eventually(async () => assert.equal(await p.clearCompleted.isVisible(), true));
    assert.match(await p.clearCompleted.textContent(), /Clear completed/);
    await p.clearCompleted.click();
    await p.expectTitles(['one', 'three']);
    await eventually(async () => assert.equal(await p.clearCompleted.isVisible(), false));

    await p.setAll(true);
    await p.clearCompleted.click();
    await eventually(async () => assert.equal(await p.items.count(), 0));
    await idle();
    const listed = await app.handler.api('GET', '/api/todos', { user: p.user });
    assert.deepEqual(listed.body.items, []);
    await p.add('four');
    assert.equal(await p.toggleAll.isChecked(), false, 'toggle-all is cleared after clear completed');
  });
});

describe('persistence', () => {
  app.test('a reload, and a browser with no storage of its own, show what the server holds', async ({ page, idle }) => {
    const p = await fresh(page);
    await p.add('one', 'two', 'three');
    await p.item('two').locator('.toggle').check();
    await idle();
    await page.reload();
    await eventually(async () => assert.deepEqual(await completedByTitle(p), { one: false, two: true, three: false }));

    // Another context shares no localStorage with the first: what it shows
    // can only come from the server.
    const other = await page.context().browser().newContext();
    try {
      const q = new TodoPage(await other.newPage(), app.url);
      await q.open(p.user);
      await eventually(async () => assert.deepEqual(await completedByTitle(q), { one: false, two: true, three: false }));
    } finally {
      await other.close();
    }
  });

  app.test('the order the todos were added in survives a reload', async ({ page, idle }) => {
    const p = await fresh(page);
    const titles = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth'];
    await p.add(...titles);
    await idle();
    await page.reload();
    await p.expectTitles(titles);
  });

  app.test('a todo another client created shows on reload', async ({ page }) => {
    const p = await fresh(page);
    await p.add('mine');
    const made = await app.handler.api('POST', '/api/todos', { user: p.user, body: { category: 'Home', title: 'from the API' } });
    assert.equal(made.status, 201);
    await page.reload();
    await eventually(async () => assert.deepEqual((await p.titles()).sort(), ['from the API', 'mine']));
  });
});

describe('routing', () => {
  async function threeWithOneDone(page) {
    const p = await fresh(page);
    await p.add('one', 'two', 'three');
    await p.item('two').locator('.toggle').check();
    await eventually(async () => assert.equal(await page.locator('.todo-list li.completed').count(), 1));
    return p;
  }

  async function selected(p) {
    return p.page.locator('.filters a.selected').getAttribute('href');
  }

  app.test('#/active, #/completed and #/ filter, and a.selected follows', async ({ page }) => {
    const p = await threeWithOneDone(page);
    assert.equal(await selected(p), '#/');
    await p.filters.filter({ hasText: 'Active' }).click();
    await p.expectTitles(['one', 'three']);
    assert.equal(await selected(p), '#/active');
    await p.filters.filter({ hasText: 'Completed' }).click();
    await p.expectTitles(['two']);
    assert.equal(await selected(p), '#/completed');
    await p.filters.filter({ hasText: 'All' }).click();
    await p.expectTitles(['one', 'two', 'three']);
    assert.equal(await selected(p), '#/');
  });

  app.test('the back button goes to the previous filter', async ({ page }) => {
    const p = await threeWithOneDone(page);
    await p.filters.filter({ hasText: 'Active' }).click();
    await p.expectTitles(['one', 'three']);
    await p.filters.filter({ hasText: 'Completed' }).click();
    await p.expectTitles(['two']);
    await page.goBack();
    await p.expectTitles(['one', 'three']);
    assert.equal(await selected(p), '#/active');
  });

  app.test('a filter survives a reload', async ({ page, idle }) => {
    const p = await threeWithOneDone(page);
    await idle();
    await page.goto(`${app.url}/?user=${p.user}#/completed`);
    await p.expectTitles(['two']);
    assert.equal(await selected(p), '#/completed');
    await page.reload();
    await p.expectTitles(['two']);
    assert.equal(await selected(p), '#/completed');
  });

  app.test('a todo checked while #/active is shown leaves the list', async ({ page }) => {
    const p = await threeWithOneDone(page);
    await p.filters.filter({ hasText: 'Active' }).click();
    await p.expectTitles(['one', 'three']);
    // click, not check: the checked todo leaves the list at once.
    await p.item('one').locator('.toggle').click();
    await p.expectTitles(['three']);
  });
});
