// Beyond TodoMVC: server-side search (q), sort and order, and paging by
// continuation with a "More" control, never a silent truncation.
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { suite, uniqueUser, eventually } from './harness.mjs';
import { TodoPage } from './todo-page.mjs';

const app = suite();

/** seed creates todos with these titles through the API, a few at a time. */
async function seed(user, titles, category = 'Home') {
  for (let i = 0; i < titles.length; i += 8) {
    await Promise.all(titles.slice(i, i + 8).map(async (title) => {
      const res = await app.handler.api('POST', '/api/todos', { user, body: { category, title } });
      assert.equal(res.status, 201, res.text);
    }));
  }
}

/** listRequests collects the query of every list request the page sends. */
function listRequests(page) {
  const seen = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (r.method() === 'GET' && u.pathname === '/api/todos') seen.push(u.searchParams);
  });
  return seen;
}

/** chooseOption selects the option of a select whose text matches re. */
async function chooseOption(select, re) {
  const value = await select.evaluate((el, src) => {
    const o = [...el.options].find((opt) => new RegExp(src, 'i').test(opt.textContent));
    return o ? o.value : null;
  }, re.source);
  assert.notEqual(value, null, `an option matching ${re}`);
  await select.selectOption(value);
}

describe('search', () => {
  app.test('the search box asks the server (q) and lists what matches', async ({ page }) => {
    const user = uniqueUser();
    await seed(user, ['apple pie', 'banana bread', 'apple juice', 'cherry tart']);
    const seen = listRequests(page);
    const p = new TodoPage(page, app.url);
    await p.open(user);
    await eventually(async () => assert.equal(await p.items.count(), 4));
    await page.getByRole('searchbox', { name: 'Search' }).fill('apple');
    await eventually(async () => assert.deepEqual((await p.titles()).sort(), ['apple juice', 'apple pie']));
    assert.ok(seen.some((q) => q.get('q') === 'apple'), 'a list request with q=apple');
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await eventually(async () => assert.equal(await p.items.count(), 4));
  });
});

describe('sort', () => {
  app.test('sort by title, ascending and descending', async ({ page }) => {
    const user = uniqueUser();
    const titles = ['delta', 'alpha', 'charlie', 'bravo'];
    await seed(user, titles);
    const seen = listRequests(page);
    const p = new TodoPage(page, app.url);
    await p.open(user);
    await eventually(async () => assert.equal(await p.items.count(), 4));
    await chooseOption(page.getByRole('combobox', { name: 'Sort by' }), /title/);
    await chooseOption(page.getByRole('combobox', { name: 'Order' }), /asc/);
    await p.expectTitles([...titles].sort());
    await chooseOption(page.getByRole('combobox', { name: 'Order' }), /desc/);
    await p.expectTitles([...titles].sort().reverse());
    assert.ok(seen.some((q) => q.get('sort') === 'title' && q.get('order') === 'desc'), 'the server sorts');
  });
});

describe('adding to a narrowed list', () => {
  app.test('a new todo is listed where the server lists it, or the page says why it is not', async ({ page }) => {
    const user = uniqueUser();
    await seed(user, ['bravo', 'delta'], 'Work');
    await seed(user, ['apple'], 'Home');
    const p = new TodoPage(page, app.url);
    await p.open(user);
    await eventually(async () => assert.equal(await p.items.count(), 3));
    const added = page.locator('.added');
    const category = page.getByRole('combobox', { name: 'Category', exact: true });

    // Sorted by title, descending: in its place, not at the end.
    await chooseOption(page.getByRole('combobox', { name: 'Sort by' }), /title/);
    await chooseOption(page.getByRole('combobox', { name: 'Order' }), /desc/);
    await p.expectTitles(['delta', 'bravo', 'apple']);
    await p.add('charlie');
    await p.expectTitles(['delta', 'charlie', 'bravo', 'apple']);
    assert.equal(await added.textContent(), '');

    // Another category than the one listed: not listed, and said so.
    await chooseOption(category, /^Work$/);
    await p.expectTitles(['delta', 'bravo']);
    await page.getByRole('combobox', { name: 'Category of the new todo' }).fill('Home');
    await p.newTodo.fill('echo');
    await p.newTodo.press('Enter');
    await eventually(async () => assert.match(await added.textContent(), /Added "echo" to Home; the list shows Work only/));
    await p.expectTitles(['delta', 'bravo']);

    // A title the search does not match: not listed, and said so.
    await chooseOption(category, /All categories/);
    await page.getByRole('searchbox', { name: 'Search' }).fill('del');
    await p.expectTitles(['delta']);
    assert.equal(await added.textContent(), '', 'a new list forgets what was said of the last one');
    await p.newTodo.fill('zulu');
    await p.newTodo.press('Enter');
    await eventually(async () => assert.match(await added.textContent(), /Added "zulu" to Home; the list shows the titles with "del" only/));
    await p.expectTitles(['delta']);
    const all = await app.handler.api('GET', '/api/todos?pageSize=100', { user });
    assert.deepEqual(all.body.items.map((t) => t.title).sort(), ['apple', 'bravo', 'charlie', 'delta', 'echo', 'zulu']);
  });
});

describe('paging', () => {
  app.test('"More" loads the next page until everything is listed', async ({ page }) => {
    const user = uniqueUser();
    const seen = listRequests(page);
    const p = new TodoPage(page, app.url);
    await p.open(user);
    await eventually(() => assert.ok(seen.length > 0, 'the page listed'));
    // The page's own page size (the API's default when it sends none).
    const pageSize = Number(seen[0].get('pageSize') || 20);
    const total = pageSize + Math.ceil(pageSize / 2);
    const titles = Array.from({ length: total }, (_, i) => `todo ${String(i).padStart(3, '0')}`);
    await seed(user, titles);

    await page.reload();
    const more = page.getByRole('button', { name: 'More' });
    await more.waitFor();
    assert.equal(await p.items.count(), pageSize, 'one page first');
    // The newest todo comes last, after the page loaded: More lists it
    // there, and until then the page says so.
    await p.newTodo.fill('newest');
    await p.newTodo.press('Enter');
    await eventually(async () => assert.match(await page.locator('.added').textContent(), /Added "newest" to Inbox; it comes after the \d+ todos loaded: More lists it/));
    assert.equal(await p.items.count(), pageSize, 'not listed among the first page');
    await more.click();
    await eventually(async () => assert.equal(await p.items.count(), total + 1));
    assert.equal((await p.titles()).at(-1), 'newest', 'listed last, in its place');
    assert.deepEqual((await p.titles()).slice(0, -1).sort(), titles, 'each todo once');
    await more.waitFor({ state: 'hidden' });
    assert.ok(seen.some((q) => q.get('continuation')), 'the second page by continuation');
  });
});

describe('categories and the edit panel', () => {
  app.test('tags, due date and notes saved from the panel; a move to another category', async ({ page, idle }) => {
    const user = uniqueUser();
    await seed(user, ['plan the trip']);
    const p = new TodoPage(page, app.url);
    await p.open(user);
    await p.expectTitles(['plan the trip']);
    await page.getByRole('button', { name: 'Details of plan the trip' }).click();
    const panel = page.getByRole('dialog', { name: 'Edit todo' });
    await panel.waitFor();
    await panel.getByRole('textbox', { name: 'Tags' }).fill('travel, summer');
    await panel.getByLabel('Due').fill('2031-07-14');
    await panel.getByRole('textbox', { name: 'Notes' }).fill('book the train first');
    await panel.getByRole('button', { name: 'Save' }).click();
    await panel.waitFor({ state: 'hidden' });
    await idle();
    let [saved] = (await app.handler.api('GET', '/api/todos', { user })).body.items;
    assert.deepEqual(saved.tags, ['travel', 'summer']);
    assert.match(saved.dueDate, /^2031-07-14/);
    assert.equal(saved.notes, 'book the train first');
    await eventually(async () => assert.match(await p.item('plan the trip').textContent(), /travel/));

    await page.getByRole('button', { name: 'Details of plan the trip' }).click();
    await panel.waitFor();
    await panel.getByRole('combobox', { name: 'Move to category' }).or(panel.getByRole('textbox', { name: 'Move to category' })).fill('Holidays');
    await panel.getByRole('button', { name: 'Save' }).click();
    await panel.waitFor({ state: 'hidden' });
    await idle();
    [saved] = (await app.handler.api('GET', '/api/todos', { user })).body.items;
    assert.equal(saved.category, 'Holidays');
    assert.match(saved.id, /^Holidays:/, 'moved: a new id in the new partition');
    assert.deepEqual(saved.tags, ['travel', 'summer'], 'the move kept the rest');
    await eventually(async () => assert.match(await p.item('plan the trip').textContent(), /Holidays/));
  });

  app.test('a save the server refuses is shown in the panel, and what was typed stays', async ({ page }) => {
    const user = uniqueUser();
    await seed(user, ['plan the trip']);
    const p = new TodoPage(page, app.url);
    await p.open(user);
    await page.getByRole('button', { name: 'Details of plan the trip' }).click();
    const panel = page.getByRole('dialog', { name: 'Edit todo' });
    await panel.waitFor();
    // 600 characters the input takes, 1,200 bytes the server does not.
    const long = 'é'.repeat(600);
    const title = panel.getByRole('textbox', { name: 'Title' });
    await title.fill(long);
    await panel.getByRole('button', { name: 'Save' }).click();
    const alert = panel.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.textContent(), /1024 bytes/);
    assert.equal(await panel.isVisible(), true, 'the panel stays open');
    assert.equal(await title.inputValue(), long, 'with what was typed');
    await alert.getByRole('button', { name: 'Dismiss' }).click();
    await title.fill('plan the trip to Rome');
    await panel.getByRole('button', { name: 'Save' }).click();
    await panel.waitFor({ state: 'hidden' });
    await p.expectTitles(['plan the trip to Rome']);
    assert.equal(await page.getByRole('alert').count(), 0, 'no alert left behind');
  });

  app.test('the category picker on create, and the category filter', async ({ page, idle }) => {
    const user = uniqueUser();
    await seed(user, ['at home'], 'Home');
    await seed(user, ['at work'], 'Work');
    const seen = listRequests(page);
    const p = new TodoPage(page, app.url);
    await p.open(user);
    await eventually(async () => assert.equal(await p.items.count(), 2));
    const picker = page.getByRole('combobox', { name: 'Category of the new todo' })
      .or(page.getByRole('textbox', { name: 'Category of the new todo' }));
    await picker.fill('Garden');
    await p.add('mow the lawn');
    await idle();
    const listed = (await app.handler.api('GET', '/api/todos', { user })).body.items;
    assert.equal(listed.find((t) => t.title === 'mow the lawn')?.category, 'Garden');

    await chooseOption(page.getByRole('combobox', { name: 'Category', exact: true }), /^\s*Work\s*$/);
    await p.expectTitles(['at work']);
    assert.ok(seen.some((q) => q.get('category') === 'Work'), 'the server filters by category');
  });

  app.test('the last request\'s scope and charge are shown', async ({ page }) => {
    const p = new TodoPage(page, app.url);
    await p.open(uniqueUser());
    await eventually(async () => assert.match(await page.locator('.cost').textContent(), /partition|prefix|fanout|cross-partition|point/));
    assert.match(await page.locator('.cost').textContent(), /RU/);
  });
});
