/**
 * Whether a request line's target is the console's (`/ui` and below). Apart from the console's handler so that
 * `serve` can tell a console request before it has loaded the console (serve-server.ts).
 */
export const isConsolePath = (target: string): boolean => /^\/ui(?:[/?#]|$)/.test(target);
