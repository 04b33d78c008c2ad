import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pipeline } from 'node:stream/promises';
import { errorFromResponse, networkError } from '../errors.js';
import { countingStream, type PreparedFile } from './file-source.js';

/** Progress of an upload: bytes sent of the file's size. */
export interface UploadProgress {
  sentBytes: number;
  totalBytes: number;
}

export interface UploadTarget {
  url: string;
  headers: Record<string, string>;
}

async function bodyOf(response: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text;
  }
}

function headersOf(response: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  return headers;
}

/**
 * PUTs the file to the signed target with exactly its headers and Content-Length, streaming it
 * from disk (nothing buffered) and calling `onProgress` as bytes leave. Throws the typed error of
 * a refusal, a NetworkError when the connection fails or `timeoutMs` of silence passes.
 */
export function putFile(
  target: UploadTarget,
  file: PreparedFile,
  options: { onProgress?: (progress: UploadProgress) => void; signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<void> {
  const url = new URL(target.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<void>((resolve, reject) => {
    const request = send(url, {
      method: 'PUT',
      headers: { ...target.headers, 'content-length': String(file.size) },
      timeout: options.timeoutMs ?? 60_000,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    request.on('timeout', () => request.destroy(new Error('upload timed out')));
    request.on('error', (error) => reject(networkError(error)));
    request.on('response', (response) => {
      bodyOf(response).then((body) => {
        const status = response.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve();
        else reject(errorFromResponse(new Response(null, { status, headers: headersOf(response) }), body));
      }, reject);
    });
    options.onProgress?.({ sentBytes: 0, totalBytes: file.size });
    const body = countingStream(file.path, (sentBytes) => options.onProgress?.({ sentBytes, totalBytes: file.size }));
    pipeline(body, request).catch((error: unknown) => reject(networkError(error)));
  });
}
