// @ts-check
/* The API reference (decision 0139): Redoc, served by the gateway, renders the gateway's own
   OpenAPI document. No try-it console: no key is ever typed into this page. */
/** @type {{ init(specUrl: string, options: Record<string, unknown>, element: HTMLElement | null): void }} */
// @ts-expect-error Redoc is the global the standalone bundle defines
const redoc = window.Redoc;
redoc.init(
  '/api/v1/openapi.json',
  { hideDownloadButton: false, expandResponses: '200,201', jsonSampleExpandLevel: 3, sortTagsAlphabetically: true },
  document.getElementById('redoc'),
);
