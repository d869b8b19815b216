export { ApiKeysPanel } from './ApiKeysPanel';
export { DeveloperSettings } from './DeveloperSettings';
export { WebhooksPanel } from './WebhooksPanel';
