#!/usr/bin/env node
// The netgraph command. The TypeScript sources are compiled to dist/ by `npm install` (prepare) and by `npm start`.
import '../dist/main.js';
