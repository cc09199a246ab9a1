import { render } from 'preact';
import { Root } from './Root';
import { startSync } from './offline/sync';
import { startServiceWorker } from './sw-register';
import './styles.css';

render(<Root />, document.getElementById('app')!);
startSync();
startServiceWorker();
