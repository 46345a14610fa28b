import { createHash } from 'node:crypto';

/** The flags that decide what a CLI run may do without asking. */
export interface CliPolicyFlags {
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
  readonly default: 'ask' | 'allow' | 'deny';
}

/**
 * The `policy.version` of a `muster run` / `muster sessions resume`, which decisions on
 * parked calls are bound to (SPEC 15.1): a hash of `--allow`, `--deny` (each as a set) and
 * `--default`, the flags that say what runs without asking. Left out on purpose: `--park` and
 * whether a terminal is attached, which only say how an open question is asked. So a call
 * decided with `muster decide` runs when the session is resumed with the same `--allow`,
 * `--deny` and `--default`, with or without `--park`, from a script or a terminal; changing
 * those flags voids the decision and the call is asked again.
 */
export function cliPolicyVersion(flags: CliPolicyFlags): string {
  const data = {
    allow: [...new Set(flags.allow ?? [])].sort(),
    deny: [...new Set(flags.deny ?? [])].sort(),
    default: flags.default,
  };
  const hash = createHash('sha256').update(JSON.stringify(data)).digest('hex');
  return `muster-cli-1:${hash.slice(0, 32)}`;
}
