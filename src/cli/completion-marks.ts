import type { Command } from 'commander';

/**
 * Commands whose names shell completion does not offer (their subcommands still are): set from
 * the manifest's `completeName: false` (program.ts), read by the completion generator.
 */
export const NOT_COMPLETED = new WeakSet<Command>();
