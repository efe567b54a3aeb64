// bigint-buffer (through @solana/spl-token) warns in every test file that its native
// binding is not built: pnpm runs no dependency build scripts, so its pure-JS fallback is
// what runs everywhere, services included. The warning is noise in test output.
const warn = console.warn;
console.warn = (...args) => {
  if (typeof args[0] === 'string' && args[0].startsWith('bigint: Failed to load bindings')) return;
  warn(...args);
};
