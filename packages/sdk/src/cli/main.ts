import { CatalogError } from '../errors.js';
import { addVersion, addOptions } from './commands/versions.js';
import { createEntity, createOptions, getEntity, listEntities, listOptions } from './commands/entities.js';
import { login, loginOptions } from './commands/login.js';
import { runAnalysis, runOptions } from './commands/analyses.js';
import { searchLibrary, searchOptions } from './commands/library.js';
import { tailEvents, tailOptions } from './commands/events.js';
import { Context, parse, type Io, type Options } from './context.js';
import { EXIT, exitCodeOf, UsageError } from './exit-codes.js';

interface Command {
  usage: string;
  options: Options;
  run(ctx: Context): Promise<void>;
}

const COMMANDS: Record<string, Command> = {
  login: { usage: 'login --url URL [--key sk_…]   (without --key: the key on stdin)', options: loginOptions, run: login },
  'entities ls': { usage: 'entities ls [--limit N] [--after CURSOR] [--type TYPE]', options: listOptions, run: listEntities },
  'entities create': {
    usage: 'entities create --type TYPE --title TITLE [--artist A] [--dmrn D]',
    options: createOptions,
    run: createEntity,
  },
  'entities get': { usage: 'entities get ID', options: {}, run: getEntity },
  'versions add': {
    usage: 'versions add ENTITY FILE [--label L] [--version-type T] [--primary] [--content-type CT]',
    options: addOptions,
    run: addVersion,
  },
  'analyses run': {
    usage: 'analyses run TYPE FILE [--wait] [--timeout SECONDS] [--content-type CT]',
    options: runOptions,
    run: runAnalysis,
  },
  'events tail': {
    usage: 'events tail [--types a,b] [--name NAME] [--count N] [--no-follow] [--limit N]',
    options: tailOptions,
    run: tailEvents,
  },
  'library search': {
    usage: 'library search [WORDS…] [--key K] [--bpm-min N] [--bpm-max N] [--entity-type T] [--sort S] [--limit N] [--after C]',
    options: searchOptions,
    run: searchLibrary,
  },
};

export const HELP = [
  'catalogctl: the catalog service from the command line (docs/sdk.md)',
  '',
  'Commands:',
  ...Object.values(COMMANDS).map((c) => `  catalogctl ${c.usage}`),
  '',
  'Every command takes --json (machine-readable output; errors as JSON on stderr) and --url URL.',
  'Credentials: `catalogctl login` stores them in $XDG_CONFIG_HOME/catalogctl/credentials.json (0600);',
  'CATALOG_URL and CATALOG_API_KEY override them.',
  `Exit codes: ${EXIT.ok} ok, ${EXIT.failed} refused or failed, ${EXIT.usage} usage, ${EXIT.auth} authentication or permission,`,
  `${EXIT.notFound} not found, ${EXIT.unavailable} server or network unavailable.`,
].join('\n');

function find(argv: string[]): { name: string; command: Command; rest: string[] } | null {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(' ');
    const command = COMMANDS[name];
    if (command) return { name, command, rest: argv.slice(words) };
  }
  return null;
}

function report(io: Io, error: unknown, json: boolean, usage?: string): number {
  const code = exitCodeOf(error);
  if (json) {
    const body =
      error instanceof CatalogError
        ? error.toJSON()
        : { code: code === EXIT.usage ? 'usage' : 'error', message: String((error as Error)?.message ?? error) };
    io.stderr.write(`${JSON.stringify({ error: body, exitCode: code })}\n`);
    return code;
  }
  const message = error instanceof Error ? error.message : String(error);
  const detail = error instanceof CatalogError ? ` (${error.status || 'no answer'} ${error.code})` : '';
  io.stderr.write(`catalogctl: ${message}${detail}\n`);
  if (error instanceof UsageError && usage) io.stderr.write(`usage: catalogctl ${usage}\n`);
  return code;
}

/** Runs one command line; resolves with the exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  const json = argv.includes('--json');
  const found = find(argv);
  if (!found) {
    if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
      io.stdout.write(`${HELP}\n`);
      return argv.length === 0 ? EXIT.usage : EXIT.ok;
    }
    return report(io, new UsageError(`unknown command: ${argv.slice(0, 2).join(' ')}\n${HELP}`), json);
  }
  try {
    const ctx = new Context(io, parse(found.rest, found.command.options));
    if (ctx.flag('help')) {
      io.stdout.write(`usage: catalogctl ${found.command.usage}\n`);
      return EXIT.ok;
    }
    await found.command.run(ctx);
    return EXIT.ok;
  } catch (error) {
    return report(io, error, json, found.command.usage);
  }
}
