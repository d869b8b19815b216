import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { pageRoutes } from './build/page-routes.ts';
import { precompress } from './build/precompress.ts';

// In development the API and socket are proxied to a running gateway (npm start).
export default defineConfig({
  plugins: [react(), pageRoutes(), precompress()],
  server: {
    proxy: {
      '/api': process.env.GATEWAY_URL ?? 'http://localhost:8080',
      '/ws': { target: process.env.GATEWAY_URL ?? 'http://localhost:8080', ws: true },
    },
  },
  // No source maps: the production build is public.
  build: { outDir: 'dist', sourcemap: false },
});
