import { join } from 'node:path';

/** Where the workspace root is, for tests that run its commands. */
export const WORKSPACE_ROOT = join(__dirname, '..', '..', '..');
