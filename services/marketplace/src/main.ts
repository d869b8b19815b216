import path from 'node:path';
import { main } from '@reelsmith/kit';
import { wire } from './app.js';
import { loadServiceConfig } from './config.js';

main({ name: 'marketplace', config: loadServiceConfig(), migrationsDir: path.join(__dirname, '..', 'migrations'), outbox: true, wire });
