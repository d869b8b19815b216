import path from 'node:path';
import { main } from '@reelsmith/kit';
import { wire } from './app.js';
import { loadGatewayConfig } from './config.js';

main({ name: 'gateway', config: loadGatewayConfig(), migrationsDir: path.join(__dirname, '..', 'migrations'), wire });
