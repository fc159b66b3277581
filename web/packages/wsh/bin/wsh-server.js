#!/usr/bin/env node
// Placeholder replaced by the wsh server entry point.
console.error('wsh-server: not built yet');
process.exit(1);
