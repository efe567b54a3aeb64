/**
 * A compute thread: holds a view of the shared history (SharedArrayBuffers written by
 * the main thread) and runs one job at a time, so a replay never blocks the thread
 * that serves NATS.
 */
import { parentPort } from 'node:worker_threads';
import { isGridlabError } from '@gridlab/errors';
import type { History } from '@gridlab/strategy';
import { computeReply } from '../../app/compute';
import { attachBuffers, historyView, setVisibleLength } from '../../domain/shared-history';
import type { FromWorker, ToWorker } from './protocol';

const port = parentPort;
if (port === null) throw new Error('compute.worker.ts runs as a worker thread');

let history: History | undefined;
let generation = 0;

port.on('message', (message: ToWorker) => {
  if (message.type === 'history') {
    const { buffers } = message;
    // A new generation is a rebuilt history: start over, dropping what was derived
    // from the old one (square orders, big-round flags are cached per History object).
    if (history === undefined || buffers.generation !== generation) {
      history = historyView(buffers, 0);
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
    const bytes = computeReply(history, message.job);
    reply = { type: 'done', id: message.id, bytes };
    port.postMessage(reply, [bytes.buffer as ArrayBuffer]);
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
  port.postMessage(reply);
});
