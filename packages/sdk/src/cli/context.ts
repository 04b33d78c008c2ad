import { parseArgs, type ParseArgsConfig } from 'node:util';
import { createCatalogClient, type CatalogClient } from '../client.js';
import { resolveCredentials, type Env } from './config.js';
import { UsageError } from './exit-codes.js';

export interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** What a command reads and writes: nothing global, so tests and the binary run the same code. */
export interface Io {
  stdout: Output;
  stderr: Output;
  stdin: AsyncIterable<Buffer | string>;
  env: Env;
  /** Aborts on Ctrl-C (the binary wires SIGINT and SIGTERM). */
  signal: AbortSignal;
}

export type Options = NonNullable<ParseArgsConfig['options']>;

/** Options every command takes. */
const COMMON: Options = {
  json: { type: 'boolean', default: false },
  url: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
};

export interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** Parses a command's arguments with its options and the common ones; a mistake is a UsageError. */
export function parse(args: string[], options: Options): Parsed {
  try {
    const { values, positionals } = parseArgs({ args, options: { ...COMMON, ...options }, allowPositionals: true, strict: true });
    return { values: values as Parsed['values'], positionals };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export class Context {
  constructor(
    readonly io: Io,
    readonly parsed: Parsed,
  ) {}

  get json(): boolean {
    return this.parsed.values.json === true;
  }

  string(name: string): string | undefined {
    const value = this.parsed.values[name];
    return typeof value === 'string' ? value : undefined;
  }

  flag(name: string): boolean {
    return this.parsed.values[name] === true;
  }

  /** A whole number option (`--limit 20`), or `fallback`. */
  integer(name: string, fallback?: number): number | undefined {
    const text = this.string(name);
    if (text === undefined) return fallback;
    if (!/^\d+$/.test(text)) throw new UsageError(`--${name} takes a whole number, not ${JSON.stringify(text)}`);
    return Number(text);
  }

  /** The positional arguments, exactly `names.length` of them. */
  positionals(...names: string[]): string[] {
    const given = this.parsed.positionals;
    if (given.length !== names.length) throw new UsageError(`expected ${names.join(' ') || 'no arguments'}`);
    return given;
  }

  warn(line: string): void {
    this.io.stderr.write(`${line}\n`);
  }

  /** The result: its JSON with --json, else the human text. */
  print(data: unknown, human: () => string): void {
    this.io.stdout.write(this.json ? `${JSON.stringify(data)}\n` : `${human()}\n`);
  }

  async client(): Promise<CatalogClient> {
    const credentials = await resolveCredentials(this.io.env, this.string('url'), (line) => this.warn(line));
    return createCatalogClient({ ...credentials, userAgent: 'catalogctl' });
  }
}

/** Columns padded to their widest cell. */
export function table(rows: string[][]): string {
  const widths = rows.reduce<number[]>((w, row) => row.map((cell, i) => Math.max(w[i] ?? 0, cell.length)), []);
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}
