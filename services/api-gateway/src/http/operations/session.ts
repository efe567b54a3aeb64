import { sessionInfo, sessionOf } from '../dashboard';
import type { Handlers } from './handler';

/** The dashboard's sessions (the binder has checked the Origin of every `/api/live` request). */
export const sessionHandlers: Handlers<'getDashboardConfig' | 'startSessionChallenge' | 'startSession' | 'getSession' | 'endSession'> = {
  getDashboardConfig: ({ deps, res }) => {
    res.set('Cache-Control', 'no-cache').json(deps.dashboard.config());
  },
  startSessionChallenge: ({ deps, req, res }) => {
    res.set('Cache-Control', 'no-store').json(deps.dashboard.challenge(req.body));
  },
  startSession: async ({ deps, req, res }) => {
    const { cookie, info } = await deps.dashboard.signIn(req.body, req);
    res.set('Set-Cookie', cookie).status(201).set('Cache-Control', 'no-store').json(info);
  },
  getSession: ({ req, res, caller }) => {
    res.set('Cache-Control', 'no-store').json(sessionInfo(sessionOf(req)!, caller));
  },
  // The browser forgets the cookie whatever happens next; 204 only once the sign-out is recorded.
  endSession: async ({ deps, req, res }) => {
    res.set({ 'Set-Cookie': deps.dashboard.clearedCookie(), 'Cache-Control': 'no-store' });
    await deps.dashboard.signOut(req);
    res.status(204).end();
  },
};
