import { render } from 'preact';
import { App } from './app.js';
import { studioStore } from './studio-store.js';

studioStore.start();
const root = document.getElementById('app');
if (root) render(<App />, root);
