import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// In development the API and socket are proxied to a running gateway (npm start).
export default defineConfig({
  plugins: [react()],
  server: {
    proxy: {
      '/api': process.env.GATEWAY_URL ?? 'http://localhost:8080',
      '/ws': { target: process.env.GATEWAY_URL ?? 'http://localhost:8080', ws: true },
    },
  },
  build: { outDir: 'dist', sourcemap: true },
});
