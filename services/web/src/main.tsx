import { render } from 'preact';
import { Root } from './Root';
import { startSync } from './offline/sync';
import { startServiceWorker } from './sw-register';
import { loadLanguage, setLanguage } from './i18n';
import { keptLanguage } from './lib/preferences';
import './styles.css';

// The catalogue of the language last in force here (or the browser's) loads before the first render:
// German and Chinese are chunks of their own, not part of the first screen's script (i18n/index.ts).
const language = keptLanguage();
// A chunk that cannot load (a version deployed meanwhile, before the service worker has it): English.
await loadLanguage(language).catch(() => loadLanguage('en')).catch(() => undefined);
setLanguage(language);
document.documentElement.lang = language;
render(<Root />, document.getElementById('app')!);
startSync();
startServiceWorker();
