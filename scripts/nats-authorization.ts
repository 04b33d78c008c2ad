/**
 * `npm run nats:authorization`: writes the NATS authorization the Helm chart ships
 * (charts/catalog-service/files/nats-authorization.conf, decision 0055) from the route table:
 * one user per service with its permissions, each password read by nats-server from an
 * environment variable (`$CATALOG_NATS_PASSWORD`, …). A test fails when the copy is not current.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { natsPasswordVariable, renderNatsAuthorization } from '@catalog/contracts';

const target = join(dirname(fileURLToPath(import.meta.url)), '..', 'charts', 'catalog-service', 'files', 'nats-authorization.conf');
writeFileSync(target, renderNatsAuthorization({ environment: natsPasswordVariable }));
process.stdout.write(`wrote ${target}\n`);
