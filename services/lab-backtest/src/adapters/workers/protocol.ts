import type { FieldError } from '@gridlab/errors';
import type { ComputeJob } from '../../app/compute';
import type { HistoryBuffers } from '../../domain/shared-history';

/** Main thread → worker. Messages arrive in order, so a job always sees the buffers posted before it. */
export type ToWorker =
  | { readonly type: 'history'; readonly buffers: HistoryBuffers }
  /** `length`: the rounds of the history the job may read (all written before the message was posted). */
  | { readonly type: 'job'; readonly id: number; readonly job: ComputeJob; readonly length: number };

/** Worker → main thread. `bytes` is transferred, not copied. */
export type FromWorker =
  | { readonly type: 'done'; readonly id: number; readonly bytes: Uint8Array }
  | {
      readonly type: 'failed';
      readonly id: number;
      /** true: the input cannot be served (InputError); false: a fault of ours. */
      readonly input: boolean;
      readonly message: string;
      readonly errors?: readonly FieldError[];
    };
