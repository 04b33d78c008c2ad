import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderConfigurationDoc, SERVICE_CONFIGS, serviceVariables, type ServiceName } from '../../scripts/config-doc.js';

const docPath = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'configuration.md');
const services = Object.keys(SERVICE_CONFIGS) as ServiceName[];

test("docs/configuration.md is generated from the services' current configuration schemas (run `npm run docs:config`)", () => {
  expect(readFileSync(docPath, 'utf8')).toBe(renderConfigurationDoc());
});

test('each service reads each of its variables once, each described', () => {
  for (const service of services) {
    const variables = serviceVariables(service);
    const names = variables.map((v) => v.name);
    expect({ service, duplicates: names.filter((name, i) => names.indexOf(name) !== i) }).toEqual({ service, duplicates: [] });
    expect({ service, undescribed: variables.filter((v) => v.description === '').map((v) => v.name) }).toEqual({
      service,
      undescribed: [],
    });
  }
});
