import { appCsp } from '../src/http/app-page.js';

const directives = (csp: string) => new Map(csp.split('; ').map((d) => [d.split(' ')[0]!, d.split(' ').slice(1).join(' ')]));

test("/app connects to its own origin only, and to the upload origins it is given (an S3 bucket's) for uploads", () => {
  expect(directives(appCsp()).get('connect-src')).toBe("'self'");
  const withBucket = directives(appCsp(['https://s3.example.net', 'http://minio.local:9000']));
  expect(withBucket.get('connect-src')).toBe("'self' https://s3.example.net http://minio.local:9000");
  // Nothing else widens: scripts, styles and media stay as they were.
  expect(withBucket.get('script-src')).toBe("'self'");
  expect(withBucket.get('media-src')).toBe("'self' blob:");
  expect(withBucket.get('default-src')).toBe("'none'");
});
