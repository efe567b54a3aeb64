import { api } from '../api';
import { Loaded } from '../components/Status';
import { int, when } from '../format';
import { useLoad } from '../hooks';

/** The public leaderboard (no sign-in): ROI and sample size only. */
export function LeaderboardPage() {
  const [board, reload] = useLoad((signal) => api.leaderboard({ signal }), [], 60_000);
  return (
    <section aria-labelledby="lb-title">
      <h1 id="lb-title">Leaderboard</h1>
      <Loaded load={board} what="the leaderboard" retry={reload}>
        {(b) => (
          <>
            <p class="muted">
              Paper-traded strategies with at least {int(b.minRoundsToQualify)} settled rounds, by ROI · updated {when(b.generatedAt)}
            </p>
            {b.count === 0 ? (
              <p data-testid="leaderboard-empty">No strategy has qualified yet.</p>
            ) : (
              <div class="table-wrap">
                <table class="data" data-testid="leaderboard">
                  <thead>
                    <tr>
                      <th scope="col">Rank</th>
                      <th scope="col">Strategy</th>
                      <th scope="col">Owner</th>
                      <th scope="col">ROI</th>
                      <th scope="col">Rounds</th>
                    </tr>
                  </thead>
                  <tbody>
                    {b.entries.map((e) => (
                      <tr key={e.id}>
                        <td class="num">{e.rank}</td>
                        <td>{e.name}</td>
                        <td>
                          <code>{e.ownerShort}</code>
                        </td>
                        <td class="num">{e.roiPercent.toFixed(2)}%</td>
                        <td class="num">{int(e.roundsSettled)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </>
        )}
      </Loaded>
    </section>
  );
}
