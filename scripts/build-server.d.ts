// Types for scripts/build-server.js, which the tests import (test/support/global-setup.ts, processes.ts).
/** dist/main.js: the bundled server. */
export declare const serverFile: string;
/** Bundles src/main.ts into serverFile. */
export declare function buildServer(): Promise<void>;
