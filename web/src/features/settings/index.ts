/** What the rest of the app uses of the default settings. */
export { DefaultSettingsModal } from './DefaultSettingsModal';
export { loadDefaults } from './defaults';
