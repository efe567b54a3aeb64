/// <reference lib="dom" />
/**
 * The dashboard as a person uses it: headless Chromium (Debian's `chromium`, driven by
 * playwright-core) against the suite started as `make start` starts it, on a fast devnet.
 * Signs in with a granted key, watches the live grid change, backtests, gets a field
 * error, creates, lists and deletes a strategy, creates an alert rule posting to a local
 * webhook receiver and tests it, reads the leaderboard signed out, checks
 * that the session cookie is HttpOnly and that requests without it or from another origin
 * are refused, and runs axe-core on every page. Screenshots of each page (desktop, 360 px,
 * dark theme) go to .gridlab/screenshots/.
 */
import { execFileSync } from 'node:child_process';
import { createPrivateKey, sign as signEd25519 } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { createPool } from '@gridlab/db';
import { RoundRepository } from '@gridlab/rounds-store';
import {
  createTestDatabase,
  runCli,
  startKeyedSuite,
  startWebhookReceiver,
  testNamespace,
  waitUntil,
  WORKSPACE_ROOT,
  type KeyedSuite,
  type TestDatabase,
  type WebhookReceiver,
} from '@gridlab/testing';
import { Connection, Keypair, PublicKey, SystemProgram, Transaction, TransactionInstruction } from '@solana/web3.js';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';

const SECRET = 'dashboard-secret-0123456789abcdef';
const OWNER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const SHOTS = join(WORKSPACE_ROOT, '.gridlab', 'screenshots');
const PAGES = ['live', 'history', 'miners', 'events', 'lab', 'strategies', 'alerts', 'leaderboard', 'subscribe'] as const;

const haveChromium = existsSync(CHROMIUM);
const NO_CHROMIUM = `no Chromium at ${CHROMIUM} (scripts/ensure-browser.sh installs Debian's chromium; CHROMIUM_PATH overrides)`;
// Locally the one condition this suite skips on, said out loud (and counted by make test's
// summary). Under CI=true the browser tests run regardless and fail for want of a browser:
// a CI run must not pass on a dashboard it never opened.
const skipBrowser = !haveChromium && process.env['CI'] !== 'true';
if (skipBrowser) process.stderr.write(`dashboard browser tests skipped: ${NO_CHROMIUM}\n`);
const describeBrowser = skipBrowser ? describe.skip : describe;

let db: TestDatabase;
const ns = testNamespace();
let work: string;
let running: KeyedSuite | null = null;
let browser: Browser;
let base: string;
let apiKey: string;
let axeSource: string;
let receiver: WebhookReceiver;

/** A fresh browser context (own cookies), optionally signed in with the key through the page itself. */
async function openPage(options: { signIn?: boolean; width?: number; dark?: boolean } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: 900 }, colorScheme: options.dark === true ? 'dark' : 'light' });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base}/#/`);
  if (options.signIn === true) {
    await page.getByLabel('API key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByTestId('grid').waitFor({ timeout: 20_000 });
  }
  expect(errors).toEqual([]);
  return { context, page };
}

async function go(page: Page, route: string): Promise<void> {
  await page.goto(`${base}/#/${route === 'live' ? '' : route}`);
  await page.locator('main h1').first().waitFor();
}

/**
 * Until the page has loaded what it shows: no "Loading …" status left. (Not `networkidle`:
 * the live page's streams never go idle, and waiting for it cost its 30 s timeout.)
 */
async function loaded(page: Page): Promise<void> {
  await page.getByRole('status').filter({ hasText: /^Loading .*…$/ }).first().waitFor({ state: 'detached', timeout: 20_000 });
}

/**
 * A Wallet Standard wallet registered in every page of the context (as an extension
 * would), backed by `keypair` in this process: the page asks, the test signs.
 */
async function installTestWallet(context: BrowserContext, keypair: Keypair): Promise<void> {
  const seed = keypair.secretKey.subarray(0, 32);
  const privateKey = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
  await context.exposeFunction('testWalletSign', (kind: string, base64: string): string => {
    const bytes = Buffer.from(base64, 'base64');
    if (kind === 'message') return signEd25519(null, bytes, privateKey).toString('base64');
    const tx = Transaction.from(bytes);
    tx.partialSign(keypair);
    return tx.serialize({ requireAllSignatures: false }).toString('base64');
  });
  await context.addInitScript(
    ({ address, publicKey }: { address: string; publicKey: number[] }) => {
      const sign = (globalThis as unknown as { testWalletSign: (kind: string, b64: string) => Promise<string> }).testWalletSign;
      const toB64 = (u8: Uint8Array): string => btoa(String.fromCharCode(...u8));
      const fromB64 = (s: string): Uint8Array => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
      const chains = ['solana:mainnet', 'solana:devnet', 'solana:localnet'];
      const account = { address, publicKey: new Uint8Array(publicKey), chains, features: ['solana:signMessage', 'solana:signTransaction'] };
      const wallet = {
        version: '1.0.0',
        name: 'Test Wallet',
        icon: 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=',
        chains,
        accounts: [account],
        features: {
          'standard:connect': { version: '1.0.0', connect: async () => ({ accounts: [account] }) },
          'standard:events': { version: '1.0.0', on: () => () => undefined },
          'solana:signMessage': {
            version: '1.0.0',
            signMessage: (...inputs: { message: Uint8Array }[]) =>
              Promise.all(inputs.map(async (i) => ({ signedMessage: i.message, signature: fromB64(await sign('message', toB64(i.message))) }))),
          },
          'solana:signTransaction': {
            version: '1.0.0',
            supportedTransactionVersions: ['legacy', 0],
            signTransaction: (...inputs: { transaction: Uint8Array }[]) =>
              Promise.all(inputs.map(async (i) => ({ signedTransaction: fromB64(await sign('transaction', toB64(i.transaction))) }))),
          },
        },
      };
      const register = (api: { register: (w: unknown) => unknown }): void => void api.register(wallet);
      window.addEventListener('wallet-standard:app-ready', (event) => register((event as CustomEvent).detail));
      window.dispatchEvent(new CustomEvent('wallet-standard:register-wallet', { detail: register }));
    },
    { address: keypair.publicKey.toBase58(), publicKey: [...keypair.publicKey.toBytes()] },
  );
}

/** axe-core's serious and critical violations on the page as it is now. */
/** Pays a Solana Pay transfer request (solana:<to>?amount&spl-token&memo) from `payer`, as a wallet app would; the transaction signature. */
async function payFromLink(payer: Keypair, link: URL): Promise<string> {
  const connection = new Connection(running!.local.rpcUrl, 'confirmed');
  const mint = new PublicKey(link.searchParams.get('spl-token')!);
  const to = new PublicKey(link.pathname);
  const mintAccount = (await connection.getAccountInfo(mint))!;
  const tokenProgram = mintAccount.owner;
  const decimals = mintAccount.data[44]!;
  const [whole, fraction = ''] = link.searchParams.get('amount')!.split('.');
  const amount = BigInt(whole!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
  const associatedTokenProgram = new PublicKey('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL');
  const ata = (owner: PublicKey) => PublicKey.findProgramAddressSync([owner.toBuffer(), tokenProgram.toBuffer(), mint.toBuffer()], associatedTokenProgram)[0];
  const data = Buffer.alloc(10);
  data.writeUInt8(12, 0); // TransferChecked
  data.writeBigUInt64LE(amount, 1);
  data.writeUInt8(decimals, 9);
  const tx = new Transaction().add(
    // CreateIdempotent of the treasury's token account.
    new TransactionInstruction({
      programId: associatedTokenProgram,
      keys: [
        { pubkey: payer.publicKey, isSigner: true, isWritable: true },
        { pubkey: ata(to), isSigner: false, isWritable: true },
        { pubkey: to, isSigner: false, isWritable: false },
        { pubkey: mint, isSigner: false, isWritable: false },
        { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
        { pubkey: tokenProgram, isSigner: false, isWritable: false },
      ],
      data: Buffer.from([1]),
    }),
    new TransactionInstruction({
      programId: tokenProgram,
      keys: [
        { pubkey: ata(payer.publicKey), isSigner: false, isWritable: true },
        { pubkey: mint, isSigner: false, isWritable: false },
        { pubkey: ata(to), isSigner: false, isWritable: true },
        { pubkey: payer.publicKey, isSigner: true, isWritable: false },
      ],
      data,
    }),
    new TransactionInstruction({ programId: new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'), keys: [], data: Buffer.from(link.searchParams.get('memo')!) }),
  );
  tx.recentBlockhash = (await connection.getLatestBlockhash()).blockhash;
  tx.feePayer = payer.publicKey;
  tx.sign(payer);
  const signature = await connection.sendRawTransaction(tx.serialize());
  // Polled (the page's RPC URL names no WebSocket endpoint).
  await waitUntil('the payment to be confirmed', async () => (await connection.getSignatureStatuses([signature])).value[0], (s) => s?.confirmationStatus === 'confirmed' || s?.confirmationStatus === 'finalized', { timeoutMs: 30_000 });
  return signature;
}

async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP rightly refuses inline scripts.
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[] }> } }).axe;
    return axe.run(document, { resultTypes: ['violations'] });
  });
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Whether a canvas inside the element has drawn pixels (the chart is not blank). */
async function canvasDrawn(page: Page, testId: string): Promise<boolean> {
  return page.getByTestId(testId).locator('canvas').first().evaluate((canvas) => {
    const c = canvas as HTMLCanvasElement;
    const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let painted = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) painted++;
    return painted > 500;
  });
}

beforeAll(async () => {
  if (!haveChromium) return;
  if (!existsSync(join(WORKSPACE_ROOT, 'apps/web/dist/index.html'))) {
    execFileSync('corepack', ['pnpm', '--filter', '@gridlab/web', '-s', 'build'], { cwd: WORKSPACE_ROOT, stdio: 'ignore', env: process.env });
  }
  axeSource = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  await mkdir(SHOTS, { recursive: true });
  work = await mkdtemp(join(tmpdir(), 'gridlab-dashboard-'));
  db = await createTestDatabase();
  // The alert rules' webhook endpoint: the notifier may post to it (loopback, http, its port only).
  receiver = await startWebhookReceiver();
  running = await startKeyedSuite({
    services: ['indexer', 'api-gateway', 'billing', 'event-log', 'lab-forward', 'lab-backtest', 'notifier'],
    databaseUrl: db.url,
    natsPrefix: ns.natsPrefix,
    redisPrefix: ns.redisPrefix,
    secret: SECRET,
    dataDir: join(work, 'data'),
    historyRounds: 120,
    owner: OWNER,
    env: { NOTIFIER_ALLOW_HTTP: 'true', NOTIFIER_ALLOW_PRIVATE: 'true', NOTIFIER_TARGET_PORTS: String(receiver.port) },
  });
  base = running.local.gatewayUrl;
  apiKey = running.env['GRIDLAB_API_KEY']!;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await running?.suite.stop();
  await receiver?.stop();
  await db?.drop();
  await ns.cleanup();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe('the dashboard build', () => {
  it('keeps the first load within 150 KB of gzipped JavaScript', async () => {
    const dist = join(WORKSPACE_ROOT, 'apps/web/dist');
    if (!existsSync(join(dist, 'index.html'))) {
      execFileSync('corepack', ['pnpm', '--filter', '@gridlab/web', '-s', 'build'], { cwd: WORKSPACE_ROOT, stdio: 'ignore', env: process.env });
    }
    const html = await readFile(join(dist, 'index.html'), 'utf8');
    // What the page loads at once: its module script and what that imports statically (modulepreload).
    const scripts = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    let gzipped = 0;
    for (const file of scripts) gzipped += gzipSync(await readFile(join(dist, file))).length;
    expect(gzipped).toBeLessThanOrEqual(150 * 1024);
  });
});

describeBrowser('the dashboard in a real browser', () => {
  beforeAll(() => {
    if (!haveChromium) throw new Error(`CI=true: the browser tests may not skip: ${NO_CHROMIUM}`);
  });

  it('shows the leaderboard and the subscription page signed out, and asks to sign in elsewhere', async () => {
    const { context, page } = await openPage();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('API key').waitFor();
    await go(page, 'leaderboard');
    await page.getByRole('heading', { name: 'Leaderboard' }).waitFor();
    await page.locator('[data-testid=leaderboard], [data-testid=leaderboard-empty]').first().waitFor();
    await go(page, 'subscribe');
    await page.getByTestId('pricing').waitFor();
    await page.screenshot({ path: join(SHOTS, 'signed-out-leaderboard.png'), fullPage: true });
    await context.close();
  });

  it('signs in with a key into an HttpOnly session the page cannot read; the live grid changes within two rounds', async () => {
    const { context, page } = await openPage({ signIn: true });
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'gridlab_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/live' });
    expect(await page.evaluate(() => document.cookie)).toBe('');
    expect(await page.content()).not.toContain(apiKey);

    const read = async () => ({
      round: Number(await page.getByTestId('round-id').textContent()),
      deployed: await page.locator('[data-testid=grid] td').evaluateAll((cells) => cells.map((c) => c.getAttribute('data-deployed')).join(',')),
    });
    const first = await read();
    // A devnet round lasts about a second here: two rounds, with room for a slow machine.
    await waitUntil('the live grid to change', read, (now) => now.round !== first.round || now.deployed !== first.deployed, { timeoutMs: 30_000 });
    await context.close();
  });

  it('shows today\'s game on the live board: EV per SOL as the heatmap, the pool, who takes each square\'s prize, and the best squares for a typed stake', async () => {
    const { context, page } = await openPage({ signIn: true });
    const game = page.getByTestId('game');
    await game.waitFor({ timeout: 20_000 });
    expect(await game.textContent()).toMatch(/Motherlode pool[\d.,]+ ORE/);
    expect(await game.textContent()).toMatch(/Production cost[\d.,]+ SOL per ORE/);
    // The returns rule's distribution mask: 10 squares to one top miner, 15 split.
    expect(await page.locator('[data-testid=grid] .cell-mark').allTextContents()).toHaveLength(25);
    expect((await page.locator('[data-testid=grid] .cell-mark').allTextContents()).filter((t) => t.trim() === 'solo')).toHaveLength(10);
    await page.getByTestId('metric-ev').check();
    await waitUntil(
      'the board coloured by EV per SOL',
      () => page.locator('[data-testid=grid] .cell-sol').allTextContents(),
      (texts) => texts.length === 25 && texts.every((t) => /^[+−]?\d\.\d{4}$/.test(t.trim())),
      { timeoutMs: 20_000 },
    );
    expect(await page.getByTestId('legend').textContent()).toMatch(/SOL per SOL.*stake 0\.1 SOL, ORE at .* \(the production cost\)/);
    // The best squares and the board, read in one go (one rendering of one EV answer): read
    // apart, a refresh between the two reads would compare two different answers.
    const board = await waitUntil(
      'the best squares beside the board coloured by EV',
      () =>
        page.evaluate(() => ({
          best: Array.from(document.querySelectorAll('[data-testid=best-squares] li'), (li) => li.textContent ?? ''),
          values: Array.from(document.querySelectorAll('[data-testid=grid] td'), (td) => Number(td.getAttribute('data-value'))),
          texts: Array.from(document.querySelectorAll('[data-testid=grid] .cell-sol'), (cell) => (cell.textContent ?? '').trim()),
        })),
      (b) => b.best.length > 0 && b.values.length === 25 && b.texts.every((t) => /^[+−]?\d\.\d{4}$/.test(t)),
      { timeoutMs: 20_000 },
    );
    expect(board.best).toHaveLength(5);
    // The best square first: its EV per SOL is the highest the board shows.
    const firstBest = Number(/#(\d+)/.exec(board.best[0]!)?.[1]);
    expect(board.values[firstBest]).toBe(Math.max(...board.values));
    // A typed stake and price are what the figures assume; a bad one says so at its field.
    await page.getByLabel('Your stake (SOL a square)').fill('2');
    await page.getByLabel('ORE price (SOL per ORE)').fill('0');
    await waitUntil('the EV for the typed stake', () => page.getByTestId('legend').textContent(), (t) => /stake 2 SOL, ORE at 0 SOL \(your price\)/.test(t ?? ''), { timeoutMs: 20_000 });
    await page.getByLabel('Your stake (SOL a square)').fill('lots');
    expect(await page.locator('[data-field=ev-stake] .field-error').textContent()).toContain('a positive amount of SOL');
    await page.getByLabel('Your stake (SOL a square)').fill('0.1');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'live-ev.png'), fullPage: true });
    await context.close();

    const narrow = await openPage({ signIn: true, width: 360 });
    await narrow.page.getByTestId('metric-ev').check();
    await narrow.page.getByTestId('best-squares').waitFor({ timeout: 20_000 });
    expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
    await narrow.page.screenshot({ path: join(SHOTS, 'live-ev-360.png'), fullPage: true });
    await narrow.context.close();
  });

  it('shows a partly known round as such: the notice, and the squares the chain does not prove marked unknown', async () => {
    // Round 0 lies below every round the devnet plays: stored as the indexer stores a round whose automated deploys did not show their squares.
    const pool = createPool(db.url);
    try {
      const repo = new RoundRepository(pool);
      const [round] = await repo.getRounds({ fromId: 1, toId: 1 });
      const w = round!.winningSquare ?? 0;
      await repo.insertMany([
        { ...round!, id: 0, source: 'transactions_partial', deployed: round!.deployed.map((v, s) => (s === w ? v : null)), count: round!.count.map((v, s) => (s === w ? v : null)), totalMiners: null },
      ]);
    } finally {
      await pool.end();
    }
    const { context, page } = await openPage({ signIn: true });
    await page.goto(`${base}/#/history?round=0`);
    await page.getByTestId('partly-known').waitFor({ timeout: 20_000 });
    const cells = await page.locator('[data-testid=round-browser] [data-testid=grid] td').evaluateAll((tds) => tds.map((c) => c.getAttribute('data-deployed')));
    expect(cells.filter((c) => c === 'unknown')).toHaveLength(24);
    await page.screenshot({ path: join(SHOTS, 'history-partly-known.png'), fullPage: true });
    await context.close();
  });

  it('refuses dashboard data without the session, and with the session from another origin', async () => {
    const { context, page } = await openPage({ signIn: true });
    const cookie = (await context.cookies()).find((c) => c.name === 'gridlab_session')!;
    const without = await fetch(`${base}/api/live/stats`, { headers: { Origin: base } });
    expect(without.status).toBe(401);
    expect(((await without.json()) as { code: string }).code).toBe('session_required');
    const foreign = await fetch(`${base}/api/live/stats`, { headers: { Origin: 'https://evil.example', Cookie: `gridlab_session=${cookie.value}` } });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { code: string }).code).toBe('origin_mismatch');
    // The page's own requests, with the cookie the browser holds, succeed.
    expect(await page.evaluate(async () => (await fetch('/api/live/stats')).status)).toBe(200);
    await context.close();
  });

  it('signs out: the page asks to sign in again and a copy of the cookie is refused; when the server cannot end the session, the page says so', async () => {
    const { context, page } = await openPage({ signIn: true });
    const cookie = (await context.cookies()).find((c) => c.name === 'gridlab_session')!;
    const replay = async () => (await fetch(`${base}/api/live/stats`, { headers: { Origin: base, Cookie: `gridlab_session=${cookie.value}` } })).status;
    expect(await replay()).toBe(200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect((await context.cookies()).find((c) => c.name === 'gridlab_session')).toBeUndefined();
    expect(await replay()).toBe(401);
    await expect(page.locator('main > p.warning').count()).resolves.toBe(0);

    // The gateway's answer when billing could not record the sign-out (its test is
    // services/api-gateway/test/session-end.test.ts): the page must not claim success.
    await page.getByLabel('API key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByTestId('grid').waitFor({ timeout: 20_000 });
    const detail = 'this browser has forgotten the session, but the server could not end it: a copy of its cookie works until 2026-11-28T00:00:00.000Z. Sign in and sign out again to end it';
    await page.route('**/api/live/session', (route) =>
      route.request().method() === 'DELETE'
        ? route.fulfill({ status: 503, contentType: 'application/problem+json', body: JSON.stringify({ type: 'about:blank', title: 'Service Unavailable', status: 503, code: 'sign_out_incomplete', detail }) })
        : route.fallback(),
    );
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page.locator('main > p.warning').textContent()).resolves.toBe(`Signed out in this browser only: ${detail}.`);
    await page.getByLabel('API key').waitFor();
    await context.close();
  });

  it('backtests and draws the equity curve; an invalid parameter shows its error at the field', async () => {
    const { context, page } = await openPage({ signIn: true });
    await go(page, 'lab');
    await page.getByRole('button', { name: 'Backtest', exact: true }).click();
    await page.getByTestId('backtest-result').waitFor({ timeout: 60_000 });
    await waitUntil('the equity curve to be drawn', () => canvasDrawn(page, 'equity-chart'), (drawn) => drawn, { timeoutMs: 10_000 });
    expect(await page.getByTestId('net-profit').textContent()).toMatch(/SOL$/);
    await page.screenshot({ path: join(SHOTS, 'lab-backtest.png'), fullPage: true });

    await page.getByLabel('Bet size per square (SOL)').fill('');
    await page.getByRole('button', { name: 'Backtest', exact: true }).click();
    const error = page.getByTestId('error-lab-bet_size_sol');
    await error.waitFor({ timeout: 30_000 });
    expect(await error.textContent()).toBe('is required');
    expect(await page.getByLabel('Bet size per square (SOL)').getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('Bet size per square (SOL)').fill('0.01');
    await page.getByRole('button', { name: 'Analytics', exact: true }).click();
    await page.getByTestId('analytics-result').waitFor({ timeout: 90_000 });
    expect(await page.getByTestId('verdict').textContent()).toMatch(/p = /);
    await waitUntil('the four sweep charts', () => page.locator('[data-testid^=sweep-] canvas').count(), (n) => n === 4, { timeoutMs: 10_000 });
    await page.screenshot({ path: join(SHOTS, 'lab-analytics.png'), fullPage: true });
    await context.close();
  });

  it('creates a strategy, lists it, deletes it and restores it', async () => {
    const { context, page } = await openPage({ signIn: true });
    const name = `browser test ${Date.now()}`;
    await go(page, 'lab');
    await page.getByLabel('Name').fill(name);
    await page.getByRole('button', { name: 'Save as strategy' }).click();
    await page.getByText('Saved:').waitFor({ timeout: 30_000 });
    await go(page, 'strategies');
    const card = page.locator('[data-testid=strategy-list] li', { hasText: name });
    await card.waitFor({ timeout: 30_000 });
    await card.getByRole('button', { name: /Deactivate/ }).click();
    await card.getByRole('button', { name: /Activate/ }).waitFor();
    page.once('dialog', (dialog) => void dialog.accept());
    await card.getByRole('button', { name: /Delete/ }).click();
    await card.waitFor({ state: 'detached', timeout: 30_000 });
    // A deletion is recoverable: the page offers the restore.
    await page.getByTestId('strategy-deleted').getByRole('button', { name: 'Restore' }).click();
    await card.waitFor({ timeout: 30_000 });
    await page.getByTestId('strategy-deleted').waitFor({ state: 'detached' });
    await context.close();
  });

  it('opens a wallet from the top miners: its summary, P&L chart, squares and ledger, exported as CSV through the session', async () => {
    // The indexer fills the miner tables as the devnet's rounds settle; a returning wallet
    // with a few rounds makes a ledger worth reading (the devnet's whales play most rounds).
    await waitUntil(
      'the indexer to store a miner with a few rounds',
      async () => {
        const res = await fetch(`${base}/api/v1/miners?window=all&sort=rounds&limit=1`, { headers: { authorization: `Bearer ${apiKey}` } });
        return res.ok ? ((await res.json()) as { miners: { rounds: number }[] }).miners[0]?.rounds ?? 0 : 0;
      },
      (rounds) => rounds >= 5,
      { timeoutMs: 120_000, everyMs: 2000 },
    );
    const { context, page } = await openPage({ signIn: true });
    await go(page, 'miners');
    await page.getByLabel('Window', { exact: true }).selectOption('all');
    await page.getByLabel('Sort by').selectOption('rounds');
    const top = page.getByTestId('top-miners');
    // The table of the sort and window chosen (the previous one stays until it comes).
    await top.locator('caption', { hasText: 'by Rounds played, All time' }).waitFor({ timeout: 20_000 });
    // A mistyped address is refused at its field, before any request.
    await page.getByLabel('Wallet address').fill('0xnot-an-address');
    await page.getByRole('button', { name: 'Open wallet' }).click();
    expect(await page.getByTestId('error-miner-address').textContent()).toContain('is not a base58 character');
    expect(await page.getByLabel('Wallet address').getAttribute('aria-invalid')).toBe('true');

    const link = top.locator('tbody tr').first().getByRole('link');
    const address = (await link.getAttribute('title'))!;
    await link.click();
    const summary = page.getByTestId('miner-summary');
    await summary.waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('miner-address').textContent()).toBe(address);
    expect(await summary.textContent()).toMatch(/Rounds[\d,]+Deployed[\d.,]+ SOLSOL back[\d.,]+ SOLNet SOL[+−]?[\d.,]+ SOL/);
    expect(await page.getByTestId('miner-ore').textContent()).toMatch(/ORE won[\d.,]+ ORE/);
    await waitUntil('the P&L curve to be drawn', () => canvasDrawn(page, 'pnl-chart'), (drawn) => drawn, { timeoutMs: 20_000 });
    const rows = page.locator('[data-testid=miner-ledger] tbody tr');
    await rows.first().waitFor({ timeout: 20_000 });
    // Newest first.
    const ids = (await rows.locator('th').allTextContents()).map(Number);
    expect(ids.length).toBeGreaterThan(0);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    // The heat map counts the rounds loaded on the squares they took.
    await page.getByTestId('heat-rounds').check();
    const played = await page.locator('[data-testid=grid] td').evaluateAll((cells) => cells.reduce((sum, c) => sum + Number(c.getAttribute('data-value')), 0));
    expect(played).toBeGreaterThan(0);
    // The export downloads the server's CSV through the session (the page never holds the key).
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.getByRole('button', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toBe(`gridlab-miner-${address}.csv`);
    const csv = (await readFile(await download.path(), 'utf8')).trim().split('\n');
    expect(csv[0]).toMatch(/^roundId,address,settledAt,payoutRule/);
    expect(csv.length).toBeGreaterThan(1);
    expect(csv[1]).toContain(address);
    await page.getByTestId('heat-sol').check();
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'miners.png'), fullPage: true });
    await context.close();

    const narrow = await openPage({ signIn: true, width: 360 });
    await narrow.page.goto(`${base}/#/miners?address=${address}`);
    await narrow.page.getByTestId('miner-summary').waitFor({ timeout: 20_000 });
    await narrow.page.locator('[data-testid=miner-ledger] tbody tr').first().waitFor({ timeout: 20_000 });
    await waitUntil('the P&L curve at 360 px', () => canvasDrawn(narrow.page, 'pnl-chart'), (drawn) => drawn, { timeoutMs: 20_000 });
    expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
    await narrow.page.screenshot({ path: join(SHOTS, 'miners-360.png'), fullPage: true });
    await narrow.context.close();
  });

  it('creates an alert rule posting to a local receiver: the secret once, a signed test ping, its deliveries, field errors, disable, enable and delete', async () => {
    const { context, page } = await openPage({ signIn: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await go(page, 'alerts');
    await loaded(page);
    // A bad field is named where it is typed: by the API (ORE) or, for an amount finer than a lamport, by the form.
    await page.getByLabel('Pool at least (ORE)').fill('0');
    await page.getByRole('button', { name: 'Create rule' }).click();
    await page.getByTestId('error-alert-minOre').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('error-alert-minOre').textContent()).toContain('at least 0.00000000001');
    expect(await page.getByLabel('Pool at least (ORE)').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Kind').selectOption('square_ev');
    await page.getByLabel('Your stake per square (SOL)').fill('0.0000000001');
    await page.getByRole('button', { name: 'Create rule' }).click();
    expect(await page.getByTestId('error-alert-stakeSol').textContent()).toContain('at most 9 decimals');

    // A rule that fires every round (any square beats -99% EV) and posts to the receiver.
    const name = `every round ${Date.now()}`;
    await page.getByLabel('Name').fill(name);
    await page.getByLabel('EV per SOL at least').fill('-0.99');
    await page.getByLabel('Your stake per square (SOL)').fill('0.1');
    await page.getByLabel('From slots before the end').fill('200');
    await page.getByLabel('Webhook URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Create rule' }).click();
    const shown = page.getByTestId('alert-secret');
    await shown.waitFor({ timeout: 20_000 });
    const secret = (await shown.locator('code').textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    expect(await shown.textContent()).toContain('it will not be shown again');
    await shown.getByRole('button', { name: 'Copy' }).click();
    await shown.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    const card = page.locator('[data-testid=alert-list] > li', { hasText: name });
    await card.waitFor({ timeout: 20_000 });
    expect(await card.textContent()).toContain(`Posts to ${receiver.url} (standard)`);
    expect(await card.locator('.badge').first().textContent()).toBe('enabled');
    const ruleId = (await card.getAttribute('data-alert'))!;

    // The test ping: the page shows its outcome, and the receiver got it signed with the secret shown.
    await card.getByRole('button', { name: /^Send a test/ }).click();
    const outcome = card.getByTestId('test-outcome');
    await outcome.waitFor({ timeout: 20_000 });
    expect(await outcome.textContent()).toMatch(/^Test delivered: HTTP 204 in \d+ ms/);
    const pingId = (await outcome.locator('code').textContent())!.trim();
    const ping = receiver.receipts.find((r) => r.id === pingId)!;
    expect(ping).toBeDefined();
    expect(new Webhook(secret).verify(ping.raw, ping.headers)).toMatchObject({ type: 'alert.test', ruleId });

    // Its firings (the test ping's too), newest first, each with its attempts; one redelivered under its webhook id.
    await card.getByRole('button', { name: /^Deliveries/ }).click();
    const firings = card.getByTestId('firing');
    await firings.filter({ hasText: 'alert.test' }).waitFor({ timeout: 20_000 });
    const fired = firings.filter({ hasText: 'alert.square_ev' }).filter({ hasText: 'delivered' });
    await waitUntil(
      'a delivered firing of the rule',
      async () => {
        await card.getByRole('button', { name: /^Refresh/ }).click();
        return fired.count();
      },
      (n) => n > 0,
      { timeoutMs: 60_000, everyMs: 1000 },
    );
    const webhookId = (await fired.first().getAttribute('data-webhook-id'))!;
    // Pinned by its webhook id: newer firings arrive every round, and a redelivered one is pending again.
    const firing = card.locator(`[data-webhook-id="${webhookId}"]`);
    expect(await firing.locator('tbody tr').first().textContent()).toMatch(/^#1.*204\d+ ms\(empty\)$/);
    const posted = receiver.receipts.find((r) => r.id === webhookId)!;
    expect(new Webhook(secret).verify(posted.raw, posted.headers)).toMatchObject({ type: 'alert.square_ev', ruleId });
    await firing.getByRole('button', { name: /^Redeliver/ }).click();
    await firing.getByText('Queued again under the same webhook id.').waitFor({ timeout: 20_000 });
    await waitUntil('the redelivery', async () => receiver.receipts.filter((r) => r.id === webhookId).length, (n) => n >= 2, { timeoutMs: 30_000 });
    // The same firings arrive on the page as they are stored (the alert stream), under their webhook ids.
    const live = page.getByTestId('live-firings').locator('li', { hasText: 'alert.square_ev' });
    await live.first().waitFor({ timeout: 30_000 });
    expect(await live.first().textContent()).toContain(name);
    const streamedId = (await live.first().getAttribute('data-webhook-id'))!;
    await waitUntil('the streamed firing at the receiver', async () => receiver.receipts.some((r) => r.id === streamedId), (got) => got, { timeoutMs: 30_000 });
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'alerts-rule.png'), fullPage: true });

    // A new secret, shown once; the next ping is signed with it.
    page.once('dialog', (dialog) => void dialog.accept());
    await card.getByRole('button', { name: /^Rotate secret/ }).click();
    await waitUntil('the new secret', async () => ((await shown.count()) === 0 ? '' : (await shown.locator('code').textContent())!.trim()), (s) => s !== '' && s !== secret, { timeoutMs: 20_000 });
    const rotated = (await shown.locator('code').textContent())!.trim();
    expect(await shown.textContent()).toContain('The previous secret keeps signing beside it until');
    await card.getByRole('button', { name: /^Send a test/ }).click();
    const secondId = await waitUntil('the second test ping', async () => (await outcome.locator('code').textContent())!.trim(), (id) => id !== pingId, { timeoutMs: 20_000 });
    const second = receiver.receipts.find((r) => r.id === secondId)!;
    expect(new Webhook(rotated).verify(second.raw, second.headers)).toMatchObject({ type: 'alert.test', ruleId });

    // Disabled by its owner, then enabled again.
    await card.getByRole('button', { name: /^Disable/ }).click();
    await card.locator('.badge', { hasText: /^disabled$/ }).waitFor({ timeout: 20_000 });
    await card.getByRole('button', { name: /^Enable/ }).click();
    await card.locator('.badge', { hasText: /^enabled$/ }).waitFor({ timeout: 20_000 });
    // Disabled by the notifier for a failing endpoint (as its delivery queue records it): the page says so, and enabling clears it.
    const pool = createPool(db.url);
    try {
      await pool.query(`UPDATE alerts.rules SET enabled = false, disabled_reason = 'endpoint_failing', failing_since = now() - interval '24 hours' WHERE id = $1`, [ruleId]);
    } finally {
      await pool.end();
    }
    await page.reload();
    await card.getByTestId('endpoint-failing').waitFor({ timeout: 20_000 });
    expect(await card.locator('.badge').first().textContent()).toBe('disabled: endpoint failing');
    expect(await page.locator('main').textContent()).not.toContain(secret);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'alerts-failing.png'), fullPage: true });
    await card.getByRole('button', { name: /^Enable/ }).click();
    await card.locator('.badge', { hasText: /^enabled$/ }).waitFor({ timeout: 20_000 });
    expect(await card.getByTestId('endpoint-failing').count()).toBe(0);

    // A rule without a webhook: no secret, its firings read here (it stays for the pages' screenshots).
    await page.getByLabel('Kind').selectOption('motherlode');
    await page.getByLabel('Name').fill('pool watch');
    await page.getByLabel('Webhook URL').fill('');
    await page.getByRole('button', { name: 'Create rule' }).click();
    await page.getByText('Created “pool watch”: without a webhook').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('alert-secret').count()).toBe(0);
    await context.close();

    for (const view of [{ width: 360, shot: 'alerts-360.png' }, { dark: true, shot: 'alerts-dark.png' }]) {
      const opened = await openPage({ signIn: true, ...view });
      await go(opened.page, 'alerts');
      await loaded(opened.page);
      await opened.page.locator('[data-testid=alert-list] > li', { hasText: name }).getByRole('button', { name: /^Deliveries/ }).click();
      await opened.page.getByTestId('firing').first().waitFor({ timeout: 20_000 });
      expect(await opened.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
      expect(await axeViolations(opened.page)).toEqual([]);
      await opened.page.screenshot({ path: join(SHOTS, view.shot), fullPage: true });
      if (view.shot === 'alerts-dark.png') {
        // Deleted, with its delivery log.
        const darkCard = opened.page.locator('[data-testid=alert-list] > li', { hasText: name });
        opened.page.once('dialog', (dialog) => void dialog.accept());
        await darkCard.getByRole('button', { name: /^Delete/ }).click();
        await darkCard.waitFor({ state: 'detached', timeout: 20_000 });
      }
      await opened.context.close();
    }
    const left = (await running!.get<{ alerts: { id: string }[] }>('/api/v1/alerts')).alerts.map((a) => a.id);
    expect(left).not.toContain(ruleId);
  });

  it('has no serious accessibility violation on any page, fits 360 px, and follows a dark system theme', async () => {
    const { context, page } = await openPage({ signIn: true });
    const found: Record<string, string[]> = {};
    for (const route of PAGES) {
      await go(page, route);
      await loaded(page);
      // miners.png is a wallet's page (the Miners test); here the page opens on the top miners.
      await page.screenshot({ path: join(SHOTS, `${route === 'miners' ? 'miners-top' : route}.png`), fullPage: true });
      const violations = await axeViolations(page);
      if (violations.length > 0) found[route] = violations;
    }
    expect(found).toEqual({});
    await context.close();

    const narrow = await openPage({ signIn: true, width: 360 });
    for (const route of PAGES) {
      await go(narrow.page, route);
      await loaded(narrow.page);
      const overflow = await narrow.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect({ route, overflow }).toEqual({ route, overflow: 0 });
    }
    await narrow.page.screenshot({ path: join(SHOTS, 'subscribe-360.png'), fullPage: true });
    await go(narrow.page, 'live');
    await narrow.page.screenshot({ path: join(SHOTS, 'live-360.png'), fullPage: true });
    await narrow.context.close();

    const dark = await openPage({ signIn: true, dark: true });
    const background = await dark.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe('rgb(14, 17, 22)');
    await dark.page.screenshot({ path: join(SHOTS, 'live-dark.png'), fullPage: true });
    expect(await axeViolations(dark.page)).toEqual([]);
    await go(dark.page, 'miners');
    await loaded(dark.page);
    await dark.page.screenshot({ path: join(SHOTS, 'miners-dark.png'), fullPage: true });
    expect(await axeViolations(dark.page)).toEqual([]);
    await dark.context.close();
  });

  it('buys a key with a browser wallet (payment, signed redemption), rotates it and signs in with the wallet', async () => {
    const keypair = Keypair.generate();
    const funded = await runCli(['devnet', 'fund', '--owner', keypair.publicKey.toBase58(), '--tokens', '100', '--rpc', running!.local.rpcUrl], running!.env);
    expect(funded.code).toBe(0);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await installTestWallet(context, keypair);
    const page = await context.newPage();
    await page.goto(`${base}/#/subscribe`);
    await page.getByRole('button', { name: 'Connect with Test Wallet' }).click();
    await page.getByText(keypair.publicKey.toBase58()).first().waitFor();
    await page.getByRole('button', { name: 'Pay with Test Wallet' }).click();
    const issued = page.getByTestId('issued-key');
    await issued.waitFor({ timeout: 90_000 });
    const bought = (await issued.locator('code').textContent())!.trim();
    expect((await fetch(`${base}/api/v1/stats`, { headers: { Authorization: `Bearer ${bought}` } })).status).toBe(200);
    await page.getByTestId('payment-instructions').waitFor();
    await page.screenshot({ path: join(SHOTS, 'subscribe-paid.png'), fullPage: true });

    await page.getByRole('button', { name: /^Rotate the key of/ }).click();
    await waitUntil('the rotated key', async () => (await issued.locator('code').textContent())!.trim(), (key) => key !== bought, { timeoutMs: 30_000 });
    const rotated = (await issued.locator('code').textContent())!.trim();
    expect((await fetch(`${base}/api/v1/stats`, { headers: { Authorization: `Bearer ${bought}` } })).status).toBe(401);
    expect((await fetch(`${base}/api/v1/stats`, { headers: { Authorization: `Bearer ${rotated}` } })).status).toBe(200);

    await page.goto(`${base}/#/`);
    await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
    await page.getByTestId('grid').waitFor({ timeout: 20_000 });
    expect(await page.locator('.who').textContent()).toContain(keypair.publicKey.toBase58().slice(0, 4));
    await context.close();
  });

  it('redeems a Solana Pay payment only with the signature of the shown message (no wallet connected)', async () => {
    const owner = Keypair.generate();
    const funded = await runCli(['devnet', 'fund', '--owner', owner.publicKey.toBase58(), '--tokens', '100', '--rpc', running!.local.rpcUrl], running!.env);
    expect(funded.code).toBe(0);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${base}/#/subscribe`);
    await page.getByLabel('Wallet address (owner of the subscription)').fill(owner.publicKey.toBase58());
    await page.getByRole('button', { name: 'Get payment instructions' }).click();
    const link = new URL((await page.getByTestId('solana-pay-link').getAttribute('href'))!);
    // Pay as a wallet app would from the Solana Pay link: TransferChecked of the amount with the memo.
    const txSig = await payFromLink(owner, link);
    await page.getByLabel('Payment transaction signature').fill(txSig);
    const message = (await page.getByTestId('subscribe-message').textContent())!;
    expect(message).toMatch(new RegExp(`^Gridlab API key subscribe\\ndomain: ${base.replace(/[.]/g, '\\.')}\\nowner: ${owner.publicKey.toBase58()}\\nnonce: pay-\\w+\\ntxSig: ${txSig}\\nexpires: \\S+$`));
    const redeem = page.getByRole('button', { name: 'Redeem with the signature' });
    expect(await redeem.isDisabled()).toBe(true);
    expect(await page.locator('main').textContent()).not.toContain('cannot redeem');
    // The owner signs the shown text elsewhere (a wallet's message signing) and pastes the base64 signature.
    const key = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), owner.secretKey.subarray(0, 32)]), format: 'der', type: 'pkcs8' });
    await page.getByLabel('Signature of the message (base64)').fill(signEd25519(null, Buffer.from(message, 'utf8'), key).toString('base64'));
    await redeem.click();
    const issued = page.getByTestId('issued-key');
    await issued.waitFor({ timeout: 30_000 });
    const bought = (await issued.locator('code').textContent())!.trim();
    expect((await fetch(`${base}/api/v1/stats`, { headers: { Authorization: `Bearer ${bought}` } })).status).toBe(200);
    await context.close();
  });

  it('is usable from the keyboard: skip link first, then the navigation', async () => {
    const { context, page } = await openPage({ signIn: true });
    // A fresh load: focus starts at the top of the document (not where the sign-in button was).
    await page.reload();
    await page.getByTestId('grid').waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Live');
    // The History link, reached and followed by keyboard alone.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'History and statistics' }).waitFor();
    await context.close();
  });
});
