/**
 * A compute thread: holds a view of the shared history (SharedArrayBuffers written by
 * the main thread) and runs one job at a time, so a replay never blocks the thread
 * that serves NATS. While it runs a long analytics job it also serves the jobs the pool
 * nests on its second port (another client's, so one client's analytics cannot make
 * everyone else wait out the whole call): between the analytics call's replays it takes
 * them synchronously (receiveMessageOnPort), runs each and answers on that port.
 */
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { isGridlabError } from '@gridlab/errors';
import { SPEC_BIG_ROUND_RULE, type BigRoundRule, type History } from '@gridlab/strategy';
import { computeReply } from '../../app/compute';
import { attachBuffers, historyView, setVisibleLength } from '../../domain/shared-history';
import type { FromWorker, ToWorker } from './protocol';

const port = parentPort;
if (port === null) throw new Error('compute.worker.ts runs as a worker thread');

const settings = workerData as { nested?: MessagePort; bigRoundRule?: BigRoundRule } | null;
const nested = settings?.nested;
if (nested === undefined) throw new Error('compute.worker.ts needs its nested-job port');

let history: History | undefined;
let generation = 0;
/** True while a nested job runs: nesting goes one level deep. */
let inNested = false;

/** Runs the nested jobs already posted, restoring the outer job's view of the history. */
function serveNested(): void {
  if (inNested || history === undefined) return;
  inNested = true;
  const { length } = history;
  try {
    for (let m = receiveMessageOnPort(nested!); m !== undefined; m = receiveMessageOnPort(nested!)) run(m.message as ToWorker, nested!);
  } finally {
    setVisibleLength(history, length);
    inNested = false;
  }
}

nested.on('message', (message: ToWorker) => run(message, nested));

port.on('message', (message: ToWorker) => {
  run(message, port);
  // A nested job posted as this one ended waits for no later replay.
  serveNested();
});

function run(message: ToWorker, replyTo: MessagePort): void {
  if (message.type === 'history') {
    const { buffers } = message;
    // A new generation is a rebuilt history: start over, dropping what was derived
    // from the old one (square orders, big-round flags are cached per History object).
    if (history === undefined || buffers.generation !== generation) {
      history = historyView(buffers, 0);
      history.bigRoundRule = settings?.bigRoundRule ?? SPEC_BIG_ROUND_RULE;
      generation = buffers.generation;
    } else {
      attachBuffers(history, buffers);
    }
    return;
  }
  let reply: FromWorker;
  try {
    if (history === undefined) throw new Error('no history received before a job');
    setVisibleLength(history, message.length);
    const bytes = computeReply(history, message.job, serveNested);
    reply = { type: 'done', id: message.id, bytes };
    replyTo.postMessage(reply, [bytes.buffer as ArrayBuffer]);
    return;
  } catch (error) {
    const input = isGridlabError(error) && error.kind === 'input';
    reply = {
      type: 'failed',
      id: message.id,
      input,
      message: error instanceof Error ? (input ? error.message : (error.stack ?? error.message)) : String(error),
      ...(input && isGridlabError(error) && error.errors !== undefined ? { errors: error.errors } : {}),
    };
  }
  replyTo.postMessage(reply);
}
