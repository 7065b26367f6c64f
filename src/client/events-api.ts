import type { ApiError } from './errors.js';
import type { RequestText } from './request.js';
import { unexpectedResponse, type TextResponse } from './response.js';

export interface EventsApi {
  /** Raw JSON text of one EventQueryResult page: eventIds exceed JS safe integers, callers must not JSON.parse it blindly. */
  fetchPageText(query: URLSearchParams, signal?: AbortSignal): Promise<string>;
}

const EVENTS = '/api/v1/events';

export function createEventsApi(core: { request: RequestText; fail(response: TextResponse): ApiError }): EventsApi {
  return {
    async fetchPageText(query, signal) {
      const response = await core.request('GET', EVENTS, { query, signal });
      if (response.status !== 200) throw core.fail(response);
      // A cheap shape check only: parsing here would cost a second parse and lose the eventIds' precision.
      if (!looksLikeJsonObject(response.text)) throw unexpectedResponse(response, ['body is not a JSON object']);
      return response.text;
    },
  };
}

function looksLikeJsonObject(text: string): boolean {
  const start = text.search(/\S/);
  let end = text.length - 1;
  while (end > start && /\s/.test(text.charAt(end))) end -= 1;
  return start >= 0 && text.charAt(start) === '{' && text.charAt(end) === '}';
}
