import type { Context } from 'koa';
import type { Logger } from '../observability/logger.js';

/** What every request of a platform HTTP app carries: its id and its logger. */
export interface HttpState {
  requestId: string;
  log: Logger;
}

export type HttpContext = Context & { state: HttpState };
