// A build starts from an empty dist/: a file moved or deleted in the source must not live on there
// as a stale module that something could still import.
import { rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
