// DEV ONLY: the HTTP door of a running `checkpoint-explorer serve`, for the scripts that drive
// one (bench/, dev/docs-shots.mjs): ceUrl is its URL with ?token=.
export function door(ceUrl) {
  const origin = new URL(ceUrl).origin;
  const token = new URL(ceUrl).searchParams.get('token') ?? '';
  /** api calls a bound method of app.App and returns its result. */
  async function api(method, ...args) {
    const res = await fetch(`${origin}/api/app.App.${method}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify(args),
    });
    const body = await res.json();
    if (!res.ok) throw new Error(`${method}: ${body.error ?? res.status}`);
    return body.result;
  }
  return { origin, token, api };
}
