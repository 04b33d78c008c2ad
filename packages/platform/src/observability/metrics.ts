/**
 * Counters in the Prometheus text format (version 0.0.4), served at `/metrics` of every service's
 * HTTP listener. Deliberately small: monotonic counters with labels, nothing else, no dependency.
 */
export type Labels = Record<string, string>;

export interface Counter {
  inc(labels?: Labels, by?: number): void;
  /** The current value for these labels (0 when never incremented). */
  value(labels?: Labels): number;
}

export interface MetricsRegistry {
  /** The counter of this name, created on first use (the same one for every later call). */
  counter(name: string, help: string): Counter;
  /** Every counter in the text exposition format. */
  render(): string;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export function createMetricsRegistry(): MetricsRegistry {
  const counters = new Map<string, { help: string; values: Map<string, number>; counter: Counter }>();
  return {
    counter(name, help) {
      const existing = counters.get(name);
      if (existing) return existing.counter;
      if (!METRIC_NAME.test(name)) throw new Error(`invalid metric name "${name}"`);
      const values = new Map<string, number>();
      const counter: Counter = {
        inc(labels = {}, by = 1) {
          if (!(by >= 0)) throw new Error('a counter only goes up');
          const key = labelText(labels);
          values.set(key, (values.get(key) ?? 0) + by);
        },
        value(labels = {}) {
          return values.get(labelText(labels)) ?? 0;
        },
      };
      counters.set(name, { help, values, counter });
      return counter;
    },
    render() {
      const lines: string[] = [];
      for (const [name, { help, values }] of counters) {
        lines.push(`# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`, `# TYPE ${name} counter`);
        for (const [labels, value] of values) lines.push(`${name}${labels} ${value}`);
      }
      return lines.length > 0 ? `${lines.join('\n')}\n` : '';
    },
  };
}

/** `{a="x",b="y"}` with names sorted (so one set of labels is one series), or '' without labels. */
function labelText(labels: Labels): string {
  const names = Object.keys(labels).sort();
  if (names.length === 0) return '';
  const pairs = names.map((name) => {
    if (!LABEL_NAME.test(name)) throw new Error(`invalid label name "${name}"`);
    const value = String(labels[name]).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
    return `${name}="${value}"`;
  });
  return `{${pairs.join(',')}}`;
}

/**
 * The registry of this process, which its `/metrics` serves (a process exposes one set of
 * counters, whatever parts of it count). Components take a registry in their settings and use this
 * one when none is given; tests read the counters from it or pass their own.
 */
export const processMetrics: MetricsRegistry = createMetricsRegistry();

/** Counters the platform keeps (names and meaning are part of the operations contract, decision 0053). */
const PLATFORM_COUNTERS = {
  deadLetters: ['catalog_dead_letters_total', 'Messages parked in the dead-letter stream, by consumer and reason'],
  retries: [
    'catalog_message_retries_total',
    'Failed attempts at handling a message that were retried, by consumer and kind (transient or rejected)',
  ],
  unhandledRejections: ['catalog_unhandled_rejections_total', 'Promise rejections nothing handled (logged; the process goes on)'],
  rpcFailures: [
    'catalog_rpc_failures_total',
    "Synchronous calls answered with an error that is not the caller's (internal_error, reply_too_large), by operation and code",
  ],
} as const satisfies Record<string, readonly [string, string]>;

export type PlatformCounter = keyof typeof PLATFORM_COUNTERS;

/** One of the platform's counters in `registry`. */
export function platformCounter(registry: MetricsRegistry, which: PlatformCounter): Counter {
  const [name, help] = PLATFORM_COUNTERS[which];
  return registry.counter(name, help);
}
