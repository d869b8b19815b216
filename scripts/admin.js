#!/usr/bin/env node
// `npm run admin:grant -- EMAIL` / `npm run admin:revoke -- EMAIL` (see scripts/src/admin.ts).
'use strict';
require('./build.js').buildIfNeeded();
require('./dist/admin.js');
