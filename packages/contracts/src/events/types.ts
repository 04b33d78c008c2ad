import type { TSchema } from '@sinclair/typebox';
import type { Product } from '../schemas/admin.js';

/** One event type: what it is about, its schema version and the shape of its `data`. */
export interface EventTypeDefinition {
  type: string;
  product: Product;
  resourceKind: string;
  schemaVersion: number;
  description: string;
  data: TSchema;
}
