/**
 * The alert stream method against a real HTTP server whose answers the test scripts: it
 * resumes after a drop with the highest firing id received as Last-Event-ID, yields a
 * lower id that is new (firings can be stored out of id order) and never one it yielded.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AlertStreamFiring as ContractAlertStreamFiring } from '@gridlab/contracts';
import type { AlertStreamFiring } from './alerts.ts';
import { GridlabClient } from './client.ts';

let server: Server;
let baseUrl: string;
let answer: (res: ServerResponse, connection: number) => void;
const lastEventIds: (string | undefined)[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    lastEventIds.push(req.headers['last-event-id'] as string | undefined);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    answer(res, lastEventIds.length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A compile-time check: the client's AlertStreamFiring is the contracts' (the OpenAPI document does not carry it). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const FIRING_IS_THE_CONTRACT: Same<AlertStreamFiring, Readonly<ContractAlertStreamFiring>> = true;

const RULE = `alr_${'a'.repeat(22)}`;
const firing = (id: number): AlertStreamFiring => ({ id, ruleId: RULE, webhookId: `msg_${id}`, firedAt: '2026-11-29T00:00:00.000Z', payload: { type: 'alert.motherlode', ruleId: RULE, roundId: id } });
const frame = (id: number): string => `event: firing\nid: ${id}\ndata: ${JSON.stringify(firing(id))}\n\n`;

describe('alertStream', () => {
  it('resumes after a drop from the highest id received, with none repeated and a late lower id kept', async () => {
    expect(FIRING_IS_THE_CONTRACT).toBe(true);
    answer = (res, connection) => {
      if (connection === 1) {
        res.write(frame(7) + frame(5));
        // Dropped mid-stream, once what was written has left.
        setTimeout(() => res.destroy(), 50);
      } else {
        // 7 again (a replay overlapping the live copy), then 6 (stored late, below 7) and 8.
        res.write(': ping\n\n' + frame(7) + frame(6) + frame(8));
        res.end();
      }
    };
    const ids: number[] = [];
    for await (const f of new GridlabClient({ baseUrl, apiKey: 'grid_k', retry: false }).alertStream({ after: 4, reconnectDelayMs: 1 })) {
      ids.push(f.id);
      expect(f).toEqual(firing(f.id));
      if (ids.length === 4) break;
    }
    expect(ids).toEqual([7, 5, 6, 8]);
    expect(lastEventIds).toEqual(['4', '7']);
  }, 10_000);
});
