/**
 * The body posted for a firing, by the target's format: `standard` posts the payload
 * itself (signed with Standard Webhooks headers); `discord` and `slack` post a message
 * their incoming webhooks accept, a human-readable summary of the payload kept within
 * the limits they enforce (a message over a limit is refused whole, so text is cut to
 * fit, on a character boundary, with an ellipsis).
 */
import { LAMPORTS_PER_SOL, ORE_BASE_UNITS } from '@gridlab/contracts';
import type { AlertPayload, SquareEvAlert, StrategySignalAlert, WalletAlert } from './alerts';
import type { TargetFormat } from './rules';

/** Discord's limits on a webhook message (developer documentation, "Embed Limits"). */
export const DISCORD_LIMITS = { content: 2000, title: 256, description: 4096, fields: 25, fieldName: 256, fieldValue: 1024, embedTotal: 6000 } as const;
/** Slack's limits: a section's text, a header's plain text. */
export const SLACK_LIMITS = { sectionText: 3000, headerText: 150 } as const;
const ELLIPSIS = '…';

/** A payload told for people: a title, a few lines, and labelled values. */
interface Summary {
  readonly title: string;
  readonly lines: readonly string[];
  readonly fields: readonly { readonly name: string; readonly value: string }[];
}

export interface DiscordMessage {
  readonly content: string;
  readonly embeds: readonly {
    readonly title: string;
    readonly description: string;
    readonly fields: readonly { readonly name: string; readonly value: string; readonly inline: boolean }[];
  }[];
  /** No mention in a rule's name or an event's text pings anyone. */
  readonly allowed_mentions: { readonly parse: readonly never[] };
}

export interface SlackMessage {
  readonly text: string;
  readonly blocks: readonly (
    | { readonly type: 'header'; readonly text: { readonly type: 'plain_text'; readonly text: string } }
    | { readonly type: 'section'; readonly text: { readonly type: 'mrkdwn'; readonly text: string } }
  )[];
}

/** The JSON body of a firing in `format`; `ruleName` (null: none) heads the human-readable ones. */
export function renderBody(format: TargetFormat, payload: AlertPayload, ruleName: string | null): string {
  switch (format) {
    case 'standard':
      return JSON.stringify(payload);
    case 'discord':
      return JSON.stringify(discordMessage(payload, ruleName));
    case 'slack':
      return JSON.stringify(slackMessage(payload, ruleName));
  }
}

/** A Discord webhook message: the rule in `content`, the summary in one embed. */
export function discordMessage(payload: AlertPayload, ruleName: string | null): DiscordMessage {
  const s = summarize(payload);
  const title = truncate(s.title, DISCORD_LIMITS.title);
  const fields = s.fields.slice(0, DISCORD_LIMITS.fields).map((f) => ({ name: truncate(f.name, DISCORD_LIMITS.fieldName), value: truncate(f.value, DISCORD_LIMITS.fieldValue), inline: true }));
  // The embed's texts together stay within Discord's total: the description gives way first, then the last fields.
  while (fields.length > 0 && title.length + fieldsLength(fields) > DISCORD_LIMITS.embedTotal) fields.pop();
  const room = Math.min(DISCORD_LIMITS.description, DISCORD_LIMITS.embedTotal - title.length - fieldsLength(fields));
  return {
    content: truncate(`${ruleLabel(payload, ruleName)}: ${s.title}`, DISCORD_LIMITS.content),
    embeds: [{ title, description: truncate(s.lines.join('\n'), room), fields }],
    allowed_mentions: { parse: [] },
  };
}

function fieldsLength(fields: readonly { readonly name: string; readonly value: string }[]): number {
  return fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
}

/** A Slack incoming-webhook message: a header and one section; `text` is the notification's fallback. */
export function slackMessage(payload: AlertPayload, ruleName: string | null): SlackMessage {
  const s = summarize(payload);
  const text = [...s.lines.map(slackEscape), ...s.fields.map((f) => `*${slackEscape(f.name)}*: ${slackEscape(f.value)}`)].join('\n');
  return {
    text: truncate(slackEscape(`${ruleLabel(payload, ruleName)}: ${s.title}`), SLACK_LIMITS.sectionText),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: truncate(s.title, SLACK_LIMITS.headerText) } },
      { type: 'section', text: { type: 'mrkdwn', text: truncate(text, SLACK_LIMITS.sectionText) } },
    ],
  };
}

/**
 * Slack's mrkdwn reads `&`, `<` and `>` as control characters (`<url|text>`, `<!here>`):
 * escaped, a rule's name or an address cannot turn into a link or a mention.
 */
function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * `text` cut to at most `max` UTF-16 units (the unit the limits count), ending in an
 * ellipsis when cut; never inside a surrogate pair nor inside an escape (`&amp;`).
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max < ELLIPSIS.length) return '';
  let end = max - ELLIPSIS.length;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  const amp = text.lastIndexOf('&', end - 1);
  if (amp >= 0 && amp >= end - 4 && /^&(amp|lt|gt);/.test(text.slice(amp)) && text.indexOf(';', amp) >= end) end = amp;
  return text.slice(0, end) + ELLIPSIS;
}

function ruleLabel(payload: AlertPayload, ruleName: string | null): string {
  return ruleName === null ? `Alert ${payload.ruleId}` : `Alert "${ruleName}"`;
}

const ore = (baseUnits: number): string => `${trim(baseUnits / ORE_BASE_UNITS, 4)} ORE`;
const sol = (lamports: number): string => `${trim(lamports / LAMPORTS_PER_SOL, 4)} SOL`;
const percent = (evPerSol: number): string => `${evPerSol >= 0 ? '+' : ''}${trim(evPerSol * 100, 2)}%`;
/** At most `digits` decimals, without trailing zeros. */
const trim = (x: number, digits: number): string => String(Number(x.toFixed(digits)));
const short = (address: string): string => `${address.slice(0, 4)}…${address.slice(-4)}`;

function summarize(payload: AlertPayload): Summary {
  switch (payload.type) {
    case 'alert.motherlode':
      return {
        title: `Motherlode pool at ${ore(payload.poolBaseUnits)}`,
        lines: [`Round #${payload.roundId}: the motherlode pool holds ${ore(payload.poolBaseUnits)}, at or above ${payload.minOre} ORE.`],
        fields: [],
      };
    case 'alert.square_ev':
      return squareEvSummary(payload);
    case 'alert.wallet':
      return walletSummary(payload);
    case 'alert.event': {
      const { id, ts, kind, ...fields } = payload.event;
      return {
        title: `Event ${kind}${payload.roundId === null ? '' : ` in round #${payload.roundId}`}`,
        lines: [`Event #${id} of the log, ${ts}.`],
        fields: Object.entries(fields).map(([name, value]) => ({ name, value: String(value) })),
      };
    }
    case 'alert.strategy_signal':
      return signalSummary(payload);
  }
}

function squareEvSummary(p: SquareEvAlert): Summary {
  const price = p.orePriceSource === 'none' ? 'ORE unpriced (no production cost)' : `ORE at ${sol(p.orePriceLamports)}${p.orePriceSource === 'productionCost' ? ' (production cost)' : ''}`;
  const count = p.squares.length === 1 ? '1 square' : `${p.squares.length} squares`;
  return {
    title: `Round #${p.roundId}: ${count} at ${percent(p.minEvPerSol)} per SOL or better`,
    lines: [`${p.slotsLeft} slots left (slot ${p.slot}). Stake ${sol(p.stakeLamports)}, ${price}.`],
    fields: p.squares.map((h) => ({ name: `Square ${h.square}`, value: `${percent(h.evPerSol)} per SOL, ${sol(h.deployedLamports)} on it` })),
  };
}

const WALLET_VERBS: Readonly<Record<WalletAlert['on'], string>> = {
  deploy: 'deployed in',
  win: 'won',
  top_miner: 'is the top miner of',
  motherlode: 'shared the motherlode of',
};

function walletSummary(p: WalletAlert): Summary {
  const fields = [
    { name: 'Address', value: p.address },
    ...(p.squares === null ? [] : [{ name: 'Squares', value: p.squares.length === 0 ? 'none' : p.squares.join(', ') }]),
    ...(p.deployedLamports === null ? [] : [{ name: 'Staked', value: sol(p.deployedLamports) }]),
    ...(p.winningSquare === null ? [] : [{ name: 'Winning square', value: String(p.winningSquare) }]),
    ...(p.ore === null ? [] : [{ name: 'ORE', value: ore(p.ore) }]),
  ];
  return {
    title: `Wallet ${short(p.address)} ${WALLET_VERBS[p.on]} round #${p.roundId}`,
    lines: [p.source === 'ledger' ? 'From the miner ledger of the settled round.' : 'From its deploys seen live.'],
    fields,
  };
}

function signalSummary(p: StrategySignalAlert): Summary {
  if (!p.bet) return { title: `Strategy ${p.strategyId} sits out round #${p.roundId}`, lines: [`Reason: ${p.reason}.`], fields: [] };
  return {
    title: `Strategy ${p.strategyId} bets ${sol(p.totalLamports)} on round #${p.roundId}`,
    lines: [`${p.squares.length} square${p.squares.length === 1 ? '' : 's'}, as its forward test records.`],
    fields: p.squares.map((square, i) => ({ name: `Square ${square}`, value: sol(p.stakesLamports[i] ?? 0) })),
  };
}
