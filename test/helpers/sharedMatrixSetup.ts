/**
 * Setup file of the `shared` project of vitest.config.ts (docs/testing.md#testing-shared-matrix):
 * after each file, no shared process of its shims is left and their runtime directories are gone.
 */
import { afterAll } from 'vitest';
import { stopSharedProcesses } from './sharedMatrix.js';

afterAll(stopSharedProcesses);
