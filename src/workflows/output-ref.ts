/**
 * A `$<id>.output` reference: `$`, a node id, `.output`, and no further word character (so
 * `$a.outputs` or `$FILE.output_dir` are not references). One pattern for the references
 * (references.ts) and the bash scanner (shell/), so the two always see the same references.
 */
export const OUTPUT_REF_SOURCE = String.raw`\$([A-Za-z_][A-Za-z0-9_-]*)\.output(?![A-Za-z0-9_])`;
