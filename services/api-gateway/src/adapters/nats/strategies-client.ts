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
    const request: contracts.StrategyCreateRequest = { subscriberId, ...contracts.validateStrategyCreateBody(body) };
    return this.send(this.c.strategyCreate, request, contracts.validateStrategyReply, requestId);
  }

  list(subscriberId: string, requestId: string): Promise<contracts.StrategyListReply> {
    return this.send(this.c.strategyList, { subscriberId }, contracts.validateStrategyListReply, requestId);
  }

  get(subscriberId: string, id: string, requestId: string): Promise<contracts.StrategyDetailReply> {
    return this.send(this.c.strategyGet, { subscriberId, id }, contracts.validateStrategyDetailReply, requestId);
  }

  update(subscriberId: string, id: string, body: unknown, requestId: string): Promise<contracts.StrategyReply> {
    const request: contracts.StrategyUpdateRequest = { subscriberId, id, ...contracts.validateStrategyUpdateBody(body) };
    return this.send(this.c.strategyUpdate, request, contracts.validateStrategyReply, requestId);
  }

  delete(subscriberId: string, id: string, requestId: string): Promise<contracts.StrategyDeleteReply> {
    return this.send(this.c.strategyDelete, { subscriberId, id }, contracts.validateStrategyDeleteReply, requestId);
  }

  restore(subscriberId: string, id: string, requestId: string): Promise<contracts.StrategyReply> {
    return this.send(this.c.strategyRestore, { subscriberId, id }, contracts.validateStrategyReply, requestId);
  }

  forward(subscriberId: string, id: string, requestId: string): Promise<contracts.ForwardStats> {
    return this.send(this.c.strategyForward, { subscriberId, id }, contracts.validateForwardStats, requestId);
  }

  leaderboard(requestId: string): Promise<contracts.Leaderboard> {
    return this.send(this.c.leaderboardGet, {}, contracts.validateLeaderboard, requestId);
  }

  leaderboardEntry(id: string, requestId: string): Promise<contracts.LeaderboardDetail> {
    return this.send(this.c.leaderboardEntry, { id }, contracts.validateLeaderboardDetail, requestId);
  }
}
