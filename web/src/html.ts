// htm bound to Preact: tagged templates instead of JSX, so that the
// sources need no JSX transform.
export { html } from "htm/preact";
