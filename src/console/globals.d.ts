// Set by scripts/build-console.js: the SHA-256 of each operation of operations.ts, by name.
declare const CONSOLE_OPERATION_HASHES: Record<string, string>;

// Style sheets imported by main.tsx: esbuild bundles them into console.css.
declare module '*.css';
