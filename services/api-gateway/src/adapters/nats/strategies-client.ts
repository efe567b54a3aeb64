import * as contracts from '@gridlab/contracts';
import { CommandClient } from './command-client';

/**
 * The gateway's side of lab-forward's commands: strategy records, forward stats and the
 * leaderboard. HTTP bodies are validated against the same body contracts lab-forward
 * validates; the caller's subscriber id (from its key) travels with every owner-scoped
 * command and lab-forward maps it to the owner wallet. No responder → 503, no answer in
 * time → 504.
 */
export class StrategiesClient extends CommandClient {
  create(subscriberId: string, body: unknown, requestId: string): Promise<contracts.StrategyReply> {
    const request: contracts.StrategyCreateRequest = { subscriberId, ...contracts.validatorOf(contracts.strategyCreateBodySchema)(body) };
    return this.command('strategyCreate', request, requestId);
  }

  list(subscriberId: string, requestId: string): Promise<contracts.StrategyListReply> {
    return this.command('strategyList', { subscriberId }, requestId);
  }

  get(subscriberId: string, id: string, requestId: string): Promise<contracts.StrategyDetailReply> {
    return this.command('strategyGet', { subscriberId, id }, requestId);
  }

  update(subscriberId: string, id: string, body: unknown, requestId: string): Promise<contracts.StrategyReply> {
    const request: contracts.StrategyUpdateRequest = { subscriberId, id, ...contracts.validatorOf(contracts.strategyUpdateBodySchema)(body) };
    return this.command('strategyUpdate', request, requestId);
  }

  delete(subscriberId: string, id: string, requestId: string): Promise<contracts.StrategyDeleteReply> {
    return this.command('strategyDelete', { subscriberId, id }, requestId);
  }

  restore(subscriberId: string, id: string, requestId: string): Promise<contracts.StrategyReply> {
    return this.command('strategyRestore', { subscriberId, id }, requestId);
  }

  forward(subscriberId: string, id: string, requestId: string): Promise<contracts.ForwardStats> {
    return this.command('strategyForward', { subscriberId, id }, requestId);
  }

  leaderboard(requestId: string): Promise<contracts.Leaderboard> {
    return this.command('leaderboardGet', {}, requestId);
  }

  leaderboardEntry(id: string, requestId: string): Promise<contracts.LeaderboardDetail> {
    return this.command('leaderboardEntry', { id }, requestId);
  }
}
