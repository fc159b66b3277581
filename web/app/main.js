// Entry point of the page: start the app in #app.
import { ClawserApp } from './app.js';

const root = document.getElementById('app');
if (root) {
  const app = new ClawserApp(root);
  app.start().catch((err) => {
    root.replaceChildren();
    const p = document.createElement('p');
    p.setAttribute('role', 'alert');
    p.textContent = `Clawser failed to start: ${err?.message ?? err}`;
    root.append(p);
  });
}
