import { Type, type Static } from '@sinclair/typebox';
import { ANALYSIS_TYPES, type AnalysisType } from './analyses.js';
import { Line, PageAfter, Timestamp, Uuid } from './common.js';

/**
 * Credits an analysis job of each type costs (decision 0086): reserved when the job is created,
 * settled when it succeeds, refunded when it fails. `technical` reads headers only; the analyses
 * that decode the file cost more, those that listen for musical structure (tempo, key) most.
 */
export const ANALYSIS_COSTS: Readonly<Record<AnalysisType, number>> = {
  technical: 1,
  waveform: 2,
  loudness: 2,
  cue_points: 2,
  fingerprint: 2,
  tempo: 3,
  key: 3,
};

const costDescription = ANALYSIS_TYPES.map((type) => `${type} ${ANALYSIS_COSTS[type]}`).join(', ');

export const AnalysisCosts = Type.Object(
  Object.fromEntries(ANALYSIS_TYPES.map((type) => [type, Type.Integer({ minimum: 0 })])) as Record<
    AnalysisType,
    ReturnType<typeof Type.Integer>
  >,
  { description: `credits per analysis type: ${costDescription}` },
);

/** Kinds of ledger entries; `amount` is the change of the available balance each made. */
export const CREDIT_ENTRY_KINDS = ['grant', 'reserve', 'settle', 'refund'] as const;
export type CreditEntryKind = (typeof CREDIT_ENTRY_KINDS)[number];

export const CreditLedgerEntry = Type.Object({
  id: Uuid,
  kind: Type.Union(
    CREDIT_ENTRY_KINDS.map((k) => Type.Literal(k)),
    {
      description:
        'grant: credits added by the admin area; reserve: a job was created and holds its cost; settle: the job succeeded, its cost is spent (amount 0); refund: the job failed, its cost is back',
    },
  ),
  amount: Type.Integer({ description: 'change of the available balance (negative for a reservation)' }),
  balanceAfter: Type.Integer({ minimum: 0, description: 'available balance after this entry' }),
  jobId: Type.Union([Uuid, Type.Null()], { description: 'the analysis job of a reserve, settle or refund' }),
  reason: Type.Union([Type.String(), Type.Null()], { description: "a grant's reason" }),
  createdAt: Timestamp,
});
export type CreditLedgerEntry = Static<typeof CreditLedgerEntry>;

const balanceFields = {
  balance: Type.Integer({ minimum: 0, description: 'credits available for new analyses' }),
  reserved: Type.Integer({ minimum: 0, description: 'credits held by jobs that have not ended yet' }),
};

/** `GET /api/v1/catalog/credits`: a tenant's own balance and the price list. */
export const CreditBalance = Type.Object({ ...balanceFields, costs: AnalysisCosts });
export type CreditBalance = Static<typeof CreditBalance>;

/** Most credits one grant adds. */
const MAX_GRANT = 1_000_000_000;

export const GrantCreditsBody = Type.Object(
  {
    amount: Type.Integer({ minimum: 1, maximum: MAX_GRANT, description: 'credits to add' }),
    reason: Line(1, 200, 'why (an invoice, a trial, a correction)'),
  },
  { additionalProperties: false },
);
export type GrantCreditsBody = Static<typeof GrantCreditsBody>;

export const CreditGrant = Type.Object({ ...balanceFields, entry: CreditLedgerEntry });
export type CreditGrant = Static<typeof CreditGrant>;

/** Most ledger entries one page asks for. */
const MAX_LEDGER_PAGE = 500;

export const CreditLedgerQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LEDGER_PAGE, default: 100 })),
    after: PageAfter,
  },
  { additionalProperties: false },
);
export type CreditLedgerQuery = Static<typeof CreditLedgerQuery>;

/** The admin area's view of an organisation's credits: balance and the ledger, newest entry first. */
export const CreditLedger = Type.Object({
  ...balanceFields,
  entries: Type.Array(CreditLedgerEntry),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'pass as `after` for the next page; null when there is none' }),
  hasMore: Type.Boolean(),
});
export type CreditLedger = Static<typeof CreditLedger>;
