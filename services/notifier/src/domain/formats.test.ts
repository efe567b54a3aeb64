import fc from 'fast-check';
import type { AlertPayload, SquareEvAlert, WalletAlert } from './alerts';
import { DISCORD_LIMITS, discordMessage, renderBody, SLACK_LIMITS, slackMessage, truncate } from './formats';

const SOL = 1_000_000_000;
const ALICE = 'So11111111111111111111111111111111111111112';

const squareEv: SquareEvAlert = {
  type: 'alert.square_ev',
  ruleId: 'alr_1',
  roundId: 100,
  slot: 1000,
  slotsLeft: 10,
  minEvPerSol: 0.05,
  stakeLamports: SOL / 10,
  orePriceLamports: 2 * SOL,
  orePriceSource: 'productionCost',
  squares: [
    { square: 0, evPerSol: 0.0625, deployedLamports: SOL },
    { square: 1, evPerSol: 0.051, deployedLamports: 2 * SOL },
  ],
};

const wallet: WalletAlert = { type: 'alert.wallet', ruleId: 'alr_2', roundId: 7, address: ALICE, on: 'win', source: 'ledger', squares: [3, 7], deployedLamports: 2 * SOL, winningSquare: 7, ore: 12_345_678_901 };

describe('renderBody', () => {
  it('posts the payload itself for a standard target', () => {
    expect(JSON.parse(renderBody('standard', squareEv, 'x'))).toEqual(squareEv);
  });

  it('posts Discord and Slack messages for those targets', () => {
    expect(JSON.parse(renderBody('discord', squareEv, null))).toHaveProperty('embeds');
    expect(JSON.parse(renderBody('slack', squareEv, null))).toHaveProperty('blocks');
  });
});

describe('discordMessage', () => {
  it('summarizes a square_ev firing: the rule, the round, each square with its EV', () => {
    expect(discordMessage(squareEv, 'cheap squares')).toEqual({
      content: 'Alert "cheap squares": Round #100: 2 squares at +5% per SOL or better',
      embeds: [
        {
          title: 'Round #100: 2 squares at +5% per SOL or better',
          description: '10 slots left (slot 1000). Stake 0.1 SOL, ORE at 2 SOL (production cost).',
          fields: [
            { name: 'Square 0', value: '+6.25% per SOL, 1 SOL on it', inline: true },
            { name: 'Square 1', value: '+5.1% per SOL, 2 SOL on it', inline: true },
          ],
        },
      ],
      allowed_mentions: { parse: [] },
    });
  });

  it('never lets a name ping anyone', () => {
    expect(discordMessage(wallet, '@everyone').allowed_mentions).toEqual({ parse: [] });
  });
});

describe('slackMessage', () => {
  it('summarizes a wallet firing and escapes what Slack would read as markup', () => {
    const message = slackMessage(wallet, '<!channel> & co');
    expect(message.text).toBe('Alert "&lt;!channel&gt; &amp; co": Wallet So11…1112 won round #7');
    expect(message.blocks[1]).toEqual({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `From the miner ledger of the settled round.\n*Address*: ${ALICE}\n*Squares*: 3, 7\n*Staked*: 2 SOL\n*Winning square*: 7\n*ORE*: 0.1235 ORE`,
      },
    });
  });
});

describe('truncate', () => {
  it('cuts with an ellipsis, never inside a surrogate pair or an escape', () => {
    expect(truncate('abcdef', 6)).toBe('abcdef');
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('ab😀cd', 4)).toBe('ab…');
    expect(truncate('ab&amp;cd', 6)).toBe('ab…');
    expect(truncate('ab&amp;cd', 8)).toBe('ab&amp;…');
  });

  it('keeps within the limit and to a prefix of the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.nat(320), (text, max) => {
        const cut = truncate(text, max);
        expect(cut.length).toBeLessThanOrEqual(max);
        const kept = cut.endsWith('…') && cut !== text ? cut.slice(0, -1) : cut;
        expect(text.startsWith(kept)).toBe(true);
      }),
    );
  });
});

/** Any payload, with long and odd strings where a payload carries text. */
const text = fc.string({ unit: 'binary', maxLength: 5000 });
const payloads: fc.Arbitrary<AlertPayload> = fc.oneof(
  fc.record({ type: fc.constant('alert.motherlode' as const), ruleId: text, roundId: fc.nat(), minOre: fc.double({ min: 1e-11, max: 9e4, noNaN: true }), poolBaseUnits: fc.maxSafeNat() }),
  fc.record({
    type: fc.constant('alert.square_ev' as const),
    ruleId: text,
    roundId: fc.nat(),
    slot: fc.nat(),
    slotsLeft: fc.nat(200),
    minEvPerSol: fc.double({ min: -1, max: 1000, noNaN: true }),
    stakeLamports: fc.integer({ min: 1, max: 1e15 }),
    orePriceLamports: fc.nat(),
    orePriceSource: fc.constantFrom('caller' as const, 'productionCost' as const, 'none' as const),
    squares: fc.array(fc.record({ square: fc.nat(24), evPerSol: fc.double({ noNaN: true }), deployedLamports: fc.maxSafeNat() }), { maxLength: 25 }),
  }),
  fc.record({
    type: fc.constant('alert.wallet' as const),
    ruleId: text,
    roundId: fc.nat(),
    address: text,
    on: fc.constantFrom('deploy' as const, 'win' as const, 'top_miner' as const, 'motherlode' as const),
    source: fc.constantFrom('ledger' as const, 'deploys' as const),
    squares: fc.option(fc.array(fc.nat(24), { maxLength: 25 })),
    deployedLamports: fc.option(fc.maxSafeNat()),
    winningSquare: fc.option(fc.nat(24)),
    ore: fc.option(fc.maxSafeNat()),
  }),
  fc.record({
    type: fc.constant('alert.event' as const),
    ruleId: text,
    roundId: fc.option(fc.nat()),
    event: fc.record({ id: fc.nat(), ts: text, kind: fc.constant('big_round' as const), roundId: fc.nat(), deployedSol: fc.double({ noNaN: true }), thresholdSol: fc.double({ noNaN: true }), multiplier: fc.double({ noNaN: true }), winningSquare: fc.nat(24), totalMiners: fc.option(fc.nat()) }),
  }),
  fc.record({
    type: fc.constant('alert.strategy_signal' as const),
    ruleId: text,
    roundId: fc.nat(),
    strategyId: text,
    bet: fc.boolean(),
    reason: fc.constantFrom('bet' as const, 'filtered' as const, 'cooldown' as const),
    squares: fc.array(fc.nat(24), { maxLength: 25 }),
    stakesLamports: fc.array(fc.maxSafeNat(), { maxLength: 25 }),
    totalLamports: fc.maxSafeNat(),
  }),
);

describe('limits', () => {
  it("keeps every Discord message within Discord's limits", () => {
    fc.assert(
      fc.property(payloads, fc.option(text), (payload, name) => {
        const m = discordMessage(payload, name);
        expect(m.content.length).toBeLessThanOrEqual(DISCORD_LIMITS.content);
        expect(m.embeds).toHaveLength(1);
        const embed = m.embeds[0]!;
        expect(embed.title.length).toBeLessThanOrEqual(DISCORD_LIMITS.title);
        expect(embed.description.length).toBeLessThanOrEqual(DISCORD_LIMITS.description);
        expect(embed.fields.length).toBeLessThanOrEqual(DISCORD_LIMITS.fields);
        for (const f of embed.fields) {
          expect(f.name.length).toBeLessThanOrEqual(DISCORD_LIMITS.fieldName);
          expect(f.value.length).toBeLessThanOrEqual(DISCORD_LIMITS.fieldValue);
        }
        const total = embed.title.length + embed.description.length + embed.fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
        expect(total).toBeLessThanOrEqual(DISCORD_LIMITS.embedTotal);
      }),
      { numRuns: 300 },
    );
  });

  it("keeps every Slack message within Slack's limits", () => {
    fc.assert(
      fc.property(payloads, fc.option(text), (payload, name) => {
        const m = slackMessage(payload, name);
        expect(m.text.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
        for (const block of m.blocks) {
          expect(block.text.text.length).toBeLessThanOrEqual(block.type === 'header' ? SLACK_LIMITS.headerText : SLACK_LIMITS.sectionText);
        }
      }),
      { numRuns: 300 },
    );
  });
});
