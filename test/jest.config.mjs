import preset from '../jest.preset.mjs';

export default {
  ...preset,
  testMatch: [
    '<rootDir>/contract/**/*.test.ts',
    '<rootDir>/deploy/**/*.test.ts',
    '<rootDir>/dev/**/*.test.ts',
    '<rootDir>/chaos/**/*.test.ts',
    '<rootDir>/fuzz/**/*.test.ts',
    '<rootDir>/security/**/*.test.ts',
    '<rootDir>/sdk/**/*.test.ts',
    '<rootDir>/web/**/*.test.ts',
  ],
  testTimeout: 60_000,
};
