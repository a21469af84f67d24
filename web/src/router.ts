// A small router on location.hash. TodoMVC's routes (#/, #/active,
// #/completed) are the list's filters; any other #/<view>/<rest> names a
// view that is loaded on first use (its module is a chunk of its own, so
// the first load stays small). Add a view by adding it to views.
import { signal } from "@preact/signals";
import type { ComponentType } from "preact";

export type Filter = "all" | "active" | "completed";

export interface Route {
  /** "todos" for the list, else a key of views. */
  view: string;
  filter: Filter;
  /** What follows the view's name, for the view to read ("" when nothing). */
  rest: string;
}

/** A view's module: its default export is the component, given the route. */
export type ViewModule = { default: ComponentType<{ route: Route }> };

/** The views besides the list, each loaded when it is first shown. */
export const views: Record<string, () => Promise<ViewModule>> = {
  admin: () => import("./views/admin"),
  history: () => import("./views/history"),
  activity: () => import("./views/activity"),
  forget: () => import("./views/forget"),
  manage: () => import("./views/manage"),
};

export function parse(hash: string): Route {
  const path = hash.replace(/^#\/?/, "");
  const [name = "", ...rest] = path.split("/");
  if (name === "active" || name === "completed") return { view: "todos", filter: name, rest: "" };
  // #/todos/{id}: one todo's history.
  if (name === "todos" && rest.length > 0) return { view: "history", filter: "all", rest: rest.join("/") };
  if (name in views) return { view: name, filter: "all", rest: rest.join("/") };
  return { view: "todos", filter: "all", rest: "" };
}

export const route = signal<Route>(parse(location.hash));

addEventListener("hashchange", () => {
  route.value = parse(location.hash);
});
