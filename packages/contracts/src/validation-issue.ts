/** Where a request failed its checks, and how: shared by the validator and the number-text check. */
export type RequestPart = 'params' | 'query' | 'headers' | 'body';

export interface ValidationIssue {
  location: RequestPart;
  path: string;
  message: string;
}
