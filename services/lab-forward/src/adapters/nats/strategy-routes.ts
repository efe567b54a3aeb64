import { route, type AnyCommandRoute } from '@gridlab/bus';
import * as contracts from '@gridlab/contracts';
import type { StrategyCommands } from '../../app/strategy-commands';

/** lab-forward's NATS commands (queue group `lab-forward`), each validated both ways by its contract. */
export function strategyRoutes(names: contracts.NatsNames, commands: StrategyCommands): AnyCommandRoute[] {
  const c = names.commands;
  return [
    route({ subject: c.strategyCreate, request: contracts.validateStrategyCreateRequest, result: contracts.validateStrategyReply, handle: (r) => commands.create(r) }),
    route({ subject: c.strategyList, request: contracts.validateStrategyOwnerRequest, result: contracts.validateStrategyListReply, handle: (r) => commands.list(r) }),
    route({ subject: c.strategyGet, request: contracts.validateStrategyIdRequest, result: contracts.validateStrategyDetailReply, handle: (r) => commands.get(r) }),
    route({ subject: c.strategyUpdate, request: contracts.validateStrategyUpdateRequest, result: contracts.validateStrategyReply, handle: (r) => commands.update(r) }),
    route({ subject: c.strategyDelete, request: contracts.validateStrategyIdRequest, result: contracts.validateStrategyDeleteReply, handle: (r) => commands.delete(r) }),
    route({ subject: c.strategyRestore, request: contracts.validateStrategyIdRequest, result: contracts.validateStrategyReply, handle: (r) => commands.restore(r) }),
    route({ subject: c.strategyForward, request: contracts.validateStrategyIdRequest, result: contracts.validateForwardStats, handle: (r) => commands.forward(r) }),
    route({ subject: c.leaderboardGet, request: contracts.validateLeaderboardRequest, result: contracts.validateLeaderboard, handle: () => commands.leaderboard() }),
    route({ subject: c.leaderboardEntry, request: contracts.validateLeaderboardEntryRequest, result: contracts.validateLeaderboardDetail, handle: (r) => commands.leaderboardEntry(r) }),
  ];
}
