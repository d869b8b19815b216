#!/usr/bin/env node
// `npm start`: builds whatever is missing or out of date, then hands over to the supervisor.
'use strict';
require('./build.js').buildIfNeeded();
require('./dist/supervisor.js');
