// Every catalogue loaded before the tests, so a test that sets a language
// reads its strings at once (the app loads them as chunks: i18n/index.ts).
import { LANGUAGES, loadLanguage } from './index';

await Promise.all(LANGUAGES.map(loadLanguage));
