export interface RouteShape {
  readonly method: string;
  readonly path: string;
}

export type RouteMatch<R> =
  | { readonly kind: 'found'; readonly route: R; readonly params: Readonly<Record<string, string>> }
  /** The path exists but not for this method: a 405 with these methods in `Allow`. */
  | { readonly kind: 'method-not-allowed'; readonly allow: readonly string[] }
  | { readonly kind: 'not-found' };

interface Compiled<R> {
  readonly route: R;
  /** A literal segment, or `{ param }` for a `{name}` segment. */
  readonly segments: ReadonlyArray<string | { readonly param: string }>;
  readonly literals: number;
}

/** Matches `segments` from index `start` on (the part below an `/e/{env}` or admin prefix). */
export type Router<R> = (method: string, segments: readonly string[], start?: number) => RouteMatch<R>;

/** `'/dashboards/{id}'` → `['dashboards', '{id}']`; empty segments (doubled or trailing slashes) are dropped. */
export function splitPath(path: string): string[] {
  const segments: string[] = [];
  let from = 0;
  while (from <= path.length) {
    let to = path.indexOf('/', from);
    if (to === -1) to = path.length;
    if (to > from) segments.push(path.slice(from, to));
    from = to + 1;
  }
  return segments;
}

/**
 * Matches a method and path segments. When several patterns fit, the one with more literal segments wins, so
 * `POST /dashboards/validator` is the validator, not a dashboard called "validator". HEAD runs the GET route (RFC
 * 9110 §9.3.2: the same answer without the body, which node:http leaves out for HEAD) and is allowed wherever GET is.
 */
export function createRouter<R extends RouteShape>(routes: readonly R[]): Router<R> {
  const compiled: Compiled<R>[] = routes.map((route) => {
    const segments = splitPath(route.path).map((segment) =>
      segment.startsWith('{') && segment.endsWith('}') ? { param: segment.slice(1, -1) } : segment,
    );
    return { route, segments, literals: segments.filter((segment) => typeof segment === 'string').length };
  });
  compiled.sort((a, b) => b.literals - a.literals);

  return (method, segments, start = 0) => {
    let allow: Set<string> | undefined;
    for (const candidate of compiled) {
      const params = matchSegments(candidate.segments, segments, start);
      if (!params) continue;
      const routeMethod = candidate.route.method;
      if (routeMethod === method || (method === 'HEAD' && routeMethod === 'GET')) return { kind: 'found', route: candidate.route, params };
      (allow ??= new Set()).add(routeMethod);
      if (routeMethod === 'GET') allow.add('HEAD');
    }
    return allow ? { kind: 'method-not-allowed', allow: [...allow].sort() } : { kind: 'not-found' };
  };
}

function matchSegments(
  pattern: Compiled<unknown>['segments'],
  segments: readonly string[],
  start: number,
): Record<string, string> | undefined {
  if (pattern.length !== segments.length - start) return undefined;
  let params: Record<string, string> | undefined;
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i];
    const actual = segments[start + i] as string;
    if (typeof expected === 'string') {
      if (expected !== actual) return undefined;
    } else if (expected) {
      (params ??= {})[expected.param] = actual;
    }
  }
  return params ?? {};
}
