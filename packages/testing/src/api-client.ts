export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface ApiRequestOptions {
  key?: string;
  body?: unknown;
  /** Raw body text sent as is (for malformed JSON tests). */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestTenant {
  orgId: string;
  keyId: string;
  key: string;
}

/**
 * A small client of the public HTTP API, as an integrator would call it; `adminToken` is the
 * gateway's ADMIN_TOKEN, for the admin area (`admin`, `tenant`).
 */
export function apiClient(baseUrl: string, adminToken: string) {
  async function request<T = any>(method: string, path: string, options: ApiRequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
    const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await response.text();
    let parsed: unknown = null;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: response.status, headers: response.headers, body: parsed as T };
  }

  const admin = <T = any>(method: string, path: string, body?: unknown) =>
    request<T>(method, path, { key: adminToken, ...(body !== undefined ? { body } : {}) });

  /** `POST /admin/v1/organizations`: its id. */
  async function organization(options: { name?: string; products?: string[] } = {}): Promise<string> {
    const org = await admin<{ id: string }>('POST', '/admin/v1/organizations', {
      name: options.name ?? 'Test Radio',
      products: options.products ?? ['catalog'],
    });
    if (org.status !== 201) throw new Error(`create org: ${org.status} ${JSON.stringify(org.body)}`);
    return org.body.id;
  }

  /** `POST /admin/v1/organizations/{orgId}/api-keys` (catalog:api unless told otherwise): its id and secret key. */
  async function apiKey(orgId: string, options: { name?: string; permissions?: string[] } = {}): Promise<{ keyId: string; key: string }> {
    const key = await admin<{ id: string; key: string }>('POST', `/admin/v1/organizations/${orgId}/api-keys`, {
      name: options.name ?? 'test key',
      permissions: options.permissions ?? ['catalog:api'],
    });
    if (key.status !== 201) throw new Error(`create key: ${key.status} ${JSON.stringify(key.body)}`);
    return { keyId: key.body.id, key: key.body.key };
  }

  return {
    request,
    admin,
    organization,
    apiKey,
    /** Creates an organisation with the given products (catalog) and a key with the given permissions (catalog:api). */
    async tenant(options: { products?: string[]; permissions?: string[]; name?: string } = {}): Promise<TestTenant> {
      const orgId = await organization(options);
      return { orgId, ...(await apiKey(orgId, options.permissions ? { permissions: options.permissions } : {})) };
    },
  };
}

export type ApiClient = ReturnType<typeof apiClient>;
