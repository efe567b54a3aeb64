import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// The api-gateway serves dist/ at /; `pnpm --filter @gridlab/web dev` proxies the API to a local suite.
export default defineConfig({
  plugins: [preact()],
  build: { target: 'es2022', sourcemap: true, assetsInlineLimit: 0, reportCompressedSize: true },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
