/**
 * A client of the sessions recipe: keeps the token pair, and on a 401 from an expired access
 * token refreshes once and retries. Two refreshes of one token would look like theft to the
 * server (the second revokes the session), so concurrent callers share one refresh.
 */

/** What `/login` and `/refresh` answer. */
interface TokenPair {
  access_token: string;
  refresh_token: string;
}

/** A logged-in session against `baseUrl`. */
export class Session {
  private pair: TokenPair;
  private refreshing: Promise<void> | undefined;

  private constructor(
    private readonly baseUrl: string,
    pair: TokenPair,
  ) {
    this.pair = pair;
  }

  /** Logs in with a username and password. */
  static async login(baseUrl: string, username: string, password: string): Promise<Session> {
    const response = await fetch(`${baseUrl}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });
    if (!response.ok) throw new Error(`login failed: ${response.status}`);
    return new Session(baseUrl, (await response.json()) as TokenPair);
  }

  /** `fetch` with the access token; refreshes it once when the server says it has expired. */
  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const send = () =>
      fetch(`${this.baseUrl}${path}`, {
        ...init,
        headers: { ...init.headers, authorization: `Bearer ${this.pair.access_token}` },
      });
    const response = await send();
    if (response.status !== 401) return response;
    await this.refresh();
    return send();
  }

  /** Trades the refresh token for a new pair; callers that ask meanwhile wait for the same one. */
  refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      const response = await fetch(`${this.baseUrl}/refresh`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refresh_token: this.pair.refresh_token }),
      });
      if (!response.ok) throw new Error(`session ended: ${response.status}`); // log in again
      this.pair = (await response.json()) as TokenPair;
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /** Ends this session on the server (other devices stay logged in). */
  async logout(): Promise<void> {
    await fetch(`${this.baseUrl}/logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: this.pair.refresh_token }),
    });
  }

  /** Ends every session of the user, on every device, access tokens included. */
  async logoutEverywhere(): Promise<void> {
    await this.fetch('/logout-all', { method: 'POST' });
  }
}
