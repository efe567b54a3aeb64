import { checkTarget, deliver, resolveTarget, type DeliveryOptions, type Lookup, type TargetPolicy } from '@gridlab/webhooks';
import type { Transport } from '../../app/dispatcher';

/**
 * Webhook deliveries over HTTP(S) as the operator's policy allows them: the URL checked
 * again (a rule stored under a laxer policy is held to today's), its host resolved and
 * checked at this delivery, and the request pinned to the checked address. A target the
 * policy refuses is a failed attempt, logged with the reason, never a request.
 */
export function webhookTransport(policy: TargetPolicy, options: DeliveryOptions = {}, lookup?: Lookup): Transport {
  return async (url, body, headers) => {
    const started = performance.now();
    const refused = (reason: string) => ({ status: null, delivered: false, latencyMs: performance.now() - started, excerpt: '', error: `target refused: ${reason}` });
    const checked = checkTarget(url, policy);
    if (!checked.ok) return refused(checked.reason);
    const resolved = await resolveTarget(checked.url, policy, lookup);
    if (!resolved.ok) return refused(resolved.reason);
    return deliver(checked.url, resolved.address, body, headers, options);
  };
}
