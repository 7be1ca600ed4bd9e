// The operator console's entry: served at /dashboard, built by scripts/build-console.js.
import { render } from 'preact';
import { App } from './app.tsx';
import './console.css';

const container = document.getElementById('console')!;
// The page's "Loading the console…" goes once the console draws.
container.replaceChildren();
render(<App />, container);
