// A problem as the page shows it: its title and detail in an alert the
// user dismisses. The page shows one above the list; a modal dialog shows
// its own inside itself, since all outside it is inert while it is open.
import type { Problem } from "./api";
import { html } from "./html";

export function ProblemAlert({ problem, onDismiss }: { problem: Problem | null; onDismiss: () => void }) {
  if (!problem) return null;
  return html`<div class="problem" role="alert">
    <strong class="problem-title">${problem.title}</strong>
    <span class="problem-detail">${problem.detail}</span>
    <button type="button" onClick=${onDismiss}>Dismiss</button>
  </div>`;
}
