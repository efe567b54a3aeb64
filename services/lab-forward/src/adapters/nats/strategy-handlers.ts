import type { CommandHandlers } from '@gridlab/bus';
import type { StrategyCommands } from '../../app/strategy-commands';

/** lab-forward's NATS commands, as the table in @gridlab/contracts declares them (serveDeclared checks each both ways). */
export function strategyHandlers(commands: StrategyCommands): CommandHandlers<'lab-forward'> {
  return {
    strategyCreate: (r) => commands.create(r),
    strategyList: (r) => commands.list(r),
    strategyGet: (r) => commands.get(r),
    strategyUpdate: (r) => commands.update(r),
    strategyDelete: (r) => commands.delete(r),
    strategyRestore: (r) => commands.restore(r),
    strategyForward: (r) => commands.forward(r),
    leaderboardGet: () => commands.leaderboard(),
    leaderboardEntry: (r) => commands.leaderboardEntry(r),
  };
}
