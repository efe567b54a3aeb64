// The integration tests' global setup: builds the bundles of every service, the CLI, the
// devnet and the suite runner once per run (`scripts/build.mjs --local`, about a second),
// so a test starts each as `make start` and production do (@gridlab/testing's build.ts)
// instead of compiling its sources under tsx in every process (about 1.5 s and 60 MB more
// a process).
const { join } = require('node:path');

module.exports = async function globalSetup() {
  const buildDir = join(__dirname, '..', '.gridlab', 'test-build');
  const { buildLocal } = await import('./build.mjs');
  await buildLocal(buildDir);
  process.env.GRIDLAB_BUILD_DIR = buildDir;
};
