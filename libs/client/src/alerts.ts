import type { AlertDeliveries } from './types.ts';

/** What a firing says: `type` (alert.<kind>, or alert.disabled), `ruleId`, `roundId`, then the kind's own fields. */
export type AlertPayload = AlertDeliveries['firings'][number]['payload'];

/**
 * A firing as /alerts/stream sends it (`event: firing`). The OpenAPI document does not
 * carry it (the stream's body is text); this is the contracts' AlertStreamFiring, kept
 * equal to it by a type test.
 */
export interface AlertStreamFiring {
  readonly id: number;
  readonly ruleId: string;
  /** What its webhook deliveries carry as webhook-id. */
  readonly webhookId: string;
  readonly firedAt: string;
  readonly payload: AlertPayload;
}
