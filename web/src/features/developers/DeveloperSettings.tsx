import { ApiKeysPanel } from './ApiKeysPanel';
import { WebhooksPanel } from './WebhooksPanel';

/** Settings' section for building on Reelsmith: API keys, then webhooks. */
export function DeveloperSettings() {
  return (
    <div className="account">
      <ApiKeysPanel />
      <WebhooksPanel />
    </div>
  );
}
