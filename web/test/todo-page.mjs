// The todo list page as the tests see it: TodoMVC's markup (app-spec.md)
// and the controls web/README.md names.
import assert from 'node:assert/strict';
import { eventually } from './harness.mjs';

export class TodoPage {
  /** @param {import('playwright-core').Page} page */
  constructor(page, baseURL) {
    this.page = page;
    this.baseURL = baseURL;
    this.newTodo = page.locator('.new-todo');
    this.main = page.locator('.main');
    this.footer = page.locator('.footer');
    this.items = page.locator('.todo-list li');
    this.labels = page.locator('.todo-list li .view label');
    this.toggleAll = page.locator('.toggle-all');
    this.toggleAllLabel = page.locator('label[for="toggle-all"]');
    this.count = page.locator('.todo-count');
    this.clearCompleted = page.locator('.clear-completed');
    this.filters = page.locator('.filters a');
  }

  /** open loads the page as user (dev mode's ?user=) at a hash route. */
  async open(user, hash = '') {
    const q = user ? `?user=${encodeURIComponent(user)}` : '';
    await this.page.goto(`${this.baseURL}/${q}${hash}`);
    await this.newTodo.waitFor({ state: 'visible' });
  }

  /** add types each title into .new-todo and presses Enter, waiting for
   * each to be listed before the next. */
  async add(...titles) {
    for (const title of titles) {
      const before = await this.items.count();
      await this.newTodo.fill(title);
      await this.newTodo.press('Enter');
      await eventually(async () => assert.equal(await this.items.count(), before + 1, `"${title}" listed`));
    }
  }

  /** setAll clicks "Mark all as complete" until it is checked (true) or
   * not (false). */
  async setAll(checked) {
    if ((await this.toggleAll.isChecked()) !== checked) {
      // Where the user clicks: the control's label, or the transparent
      // checkbox laid over it (TodoMVC's styles have used both).
      const box = await this.toggleAllLabel.boundingBox();
      assert.ok(box, '"Mark all as complete" is shown');
      await this.page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    }
    await eventually(async () => assert.equal(await this.toggleAll.isChecked(), checked));
  }

  item(title) {
    return this.items.filter({ has: this.page.locator('.view label', { hasText: exact(title) }) });
  }

  /** titles are the listed todos' labels, in order. */
  async titles() {
    return this.labels.allTextContents();
  }

  /** expectTitles waits until the list shows exactly these titles. */
  async expectTitles(titles) {
    await eventually(async () => assert.deepEqual(await this.titles(), titles));
  }

  /** expectCount waits until the counter says text. */
  async expectCount(text) {
    await eventually(async () => assert.equal((await this.count.textContent()).replace(/\s+/g, ' ').trim(), text));
  }

  /** edit double-clicks a todo's label and returns its .edit input. */
  async edit(title) {
    const li = this.item(title);
    await li.locator('label').dblclick();
    const input = li.locator('.edit');
    await input.waitFor({ state: 'visible' });
    return { li, input };
  }
}

/** exact makes a hasText filter that matches the whole text only. */
export function exact(text) {
  return new RegExp(`^\\s*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);
}
