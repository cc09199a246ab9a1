import { render } from 'preact';
import { App } from './App';
import { startSync } from './offline/sync';
import { startServiceWorker } from './sw-register';
import './styles.css';

render(<App />, document.getElementById('app')!);
startSync();
startServiceWorker();
