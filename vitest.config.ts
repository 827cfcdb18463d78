import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'tests/unit/**/*.test.ts', 'tests/integration/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Each integration file opens its own PGlite (~0.6 GB); keep the machine's 2 cores and memory sane.
    maxWorkers: 2,
    // Integration tests that seed the demo tenants need their accounts, not months of simulated
    // history; the simulator has its own tests.
    env: { DEMO_HISTORY: '0' },
  },
});
