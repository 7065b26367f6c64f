import { parseTargetGrant, targetRefusals, type GrantSource, type TargetGrant } from '../daemon/target-allow-list.js';
import type { Environment } from '../environments/environment.js';
import { CliError, ExitCode, UsageError } from './exit-codes.js';

/**
 * The CLI's answer to the daemon's `--allow-target`: a CI job that plans a pull request runs the request's
 * dashcd.yaml, whose `target` and `tokenEnv` (and platform variables) would send any variable of the job (a GitHub
 * token, a cloud key, prod's token) to any host its author chose. Where the job's own definition is trusted and the
 * repository is not, the job sets DASHCD_ALLOW_TARGETS to the pairs it grants (`VAR=URL`, separated by blanks or line
 * breaks), and an environment asking for any other is refused before its token is read. Unset, dashcd.yaml is the
 * operator's, as on a laptop.
 */
export const ALLOW_TARGETS_VARIABLE = 'DASHCD_ALLOW_TARGETS';

const CLI_GRANTS: GrantSource = { name: ALLOW_TARGETS_VARIABLE, owner: "dashcd's" };

/** The grants DASHCD_ALLOW_TARGETS holds, or undefined when it is unset; a malformed entry is a usage error (64). */
export function operatorGrants(env: NodeJS.ProcessEnv): TargetGrant[] | undefined {
  const text = env[ALLOW_TARGETS_VARIABLE];
  if (text === undefined) return undefined;
  return text
    .split(/\s+/)
    .filter((entry) => entry !== '')
    .map((entry) => {
      const grant = parseTargetGrant(entry, CLI_GRANTS);
      if (typeof grant === 'string') throw new UsageError(grant);
      return grant;
    });
}

/** Refuses (exit 4, nothing read or sent) a remote environment whose variables the operator's grants do not cover. */
export function requireGrantedTarget(environment: Environment, env: NodeJS.ProcessEnv): void {
  const grants = operatorGrants(env);
  if (grants === undefined) return;
  const [refusal] = targetRefusals([environment], grants, CLI_GRANTS);
  if (refusal !== undefined) throw new CliError(`${refusal}: add the pair to ${ALLOW_TARGETS_VARIABLE} if it is meant (nothing was sent)`, ExitCode.TargetUnavailable);
}
