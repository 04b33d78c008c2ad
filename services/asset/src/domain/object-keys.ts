/**
 * How the fs backend names an upload (the object key `<tenant>/<asset>/<upload>`) and where its
 * listener takes uploads: what the HTTP listener reads through the domain, never from persistence.
 */
export { parseObjectKey, UPLOAD_PATH_PREFIX } from '../persistence/blob/index.js';
