import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { isGridlabApiError } from '@gridlab/client';
import { describe, session, type SessionInfo } from './api';
import { Loading } from './components/Status';
import { useRoute } from './hooks';
import { AlertsPage } from './pages/Alerts';
import { EventsPage } from './pages/Events';
import { HistoryPage } from './pages/History';
import { LabPage } from './pages/Lab';
import { LeaderboardPage } from './pages/Leaderboard';
import { LivePage } from './pages/Live';
import { MinersPage } from './pages/Miners';
import { SignInPage } from './pages/SignIn';
import { StrategiesPage } from './pages/Strategies';
import { SubscribePage } from './pages/Subscribe';
import { when } from './format';
import './styles.css';

const PAGES = [
  { path: '/', label: 'Live', needsSession: true },
  { path: '/history', label: 'History', needsSession: true },
  { path: '/miners', label: 'Miners', needsSession: true },
  { path: '/events', label: 'Events', needsSession: true },
  { path: '/lab', label: 'Strategy Lab', needsSession: true },
  { path: '/strategies', label: 'My strategies', needsSession: true },
  { path: '/alerts', label: 'Alerts', needsSession: true },
  { path: '/leaderboard', label: 'Leaderboard', needsSession: false },
  { path: '/subscribe', label: 'Subscribe', needsSession: false },
] as const;

function App() {
  const route = useRoute();
  const [me, setMe] = useState<SessionInfo | null | undefined>(undefined);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    session.current().then(setMe, (e: unknown) => {
      setProblem(describe(e));
      setMe(null);
    });
  }, []);
  // A key revoked or lapsed mid-session: any 401 from the API ends it here too.
  useEffect(() => {
    const onRejection = (event: PromiseRejectionEvent) => {
      const reason = event.reason as { status?: number } | undefined;
      if (reason?.status === 401) setMe(null);
    };
    addEventListener('unhandledrejection', onRejection);
    return () => removeEventListener('unhandledrejection', onRejection);
  }, []);
  const page = PAGES.find((p) => p.path === route.path) ?? PAGES[0];
  // The gateway forgets the cookie whatever happens; whether the session is over everywhere
  // (every copy of the cookie refused) is what the page must say.
  const signOut = async () => {
    try {
      await session.signOut();
      setProblem(null);
    } catch (error) {
      setProblem(
        isGridlabApiError(error) && error.code === 'sign_out_incomplete'
          ? `Signed out in this browser only: ${error.detail}.`
          : `Sign-out could not be confirmed (${describe(error)}): sign in and sign out again to end the session everywhere.`,
      );
    }
    setMe(null);
  };

  let content;
  if (page.needsSession && me === undefined) content = <Loading what="your session" />;
  else if (page.needsSession && me === null) content = <SignInPage onSignedIn={setMe} />;
  else {
    const roundParam = route.params.get('round');
    switch (page.path) {
      case '/':
        content = <LivePage />;
        break;
      case '/history':
        content = <HistoryPage roundId={roundParam === null || !/^\d+$/.test(roundParam) ? null : Number(roundParam)} />;
        break;
      case '/miners':
        content = <MinersPage address={route.params.get('address')} />;
        break;
      case '/events':
        content = <EventsPage />;
        break;
      case '/lab':
        content = <LabPage />;
        break;
      case '/strategies':
        content = <StrategiesPage selected={route.params.get('id')} />;
        break;
      case '/alerts':
        content = <AlertsPage />;
        break;
      case '/leaderboard':
        content = <LeaderboardPage />;
        break;
      case '/subscribe':
        content = <SubscribePage />;
        break;
    }
  }
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="#/">
          Gridlab
        </a>
        <nav aria-label="Pages">
          <ul>
            {PAGES.map((p) => (
              <li key={p.path}>
                <a href={`#${p.path}`} aria-current={p.path === page.path ? 'page' : undefined}>
                  {p.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          {me !== null && me !== undefined ? (
            <>
              <span class="muted" title={`session until ${when(me.expiresAt)}`}>
                {me.wallet === null ? `subscriber ${me.subscriberId.slice(0, 8)}…` : `${me.wallet.slice(0, 4)}…${me.wallet.slice(-4)}`}
              </span>{' '}
              <button type="button" class="secondary" title="Ends every dashboard session of this subscription" onClick={() => void signOut()}>
                Sign out
              </button>
            </>
          ) : (
            <a href="#/">Sign in</a>
          )}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {problem !== null && (
          <p class="warning" role="status">
            {problem}
          </p>
        )}
        {content}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
