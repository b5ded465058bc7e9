// The hand-written layer's rules on their own, over a fetch that answers as the service would (no service needed):
// which requests go out again after a broken connection (grimoire/client/base.py's `resend`, the same table), the
// bookmark chain, and the retries of 429 and 503.
import assert from "node:assert/strict";
import { test } from "node:test";

import { BOOKMARK, Grimoire, GrimoireError, ok, repeatable, resend } from "@grimoire/client";

const URL = "http://grimoire.test";

function problem(status: number, detail: string): Response {
  return new Response(JSON.stringify({ type: "about:blank", title: "t", status, detail, request_id: "r-1" }),
    { status, headers: { "content-type": "application/problem+json", "retry-after": "0" } });
}

function broken(code: string): TypeError {
  return new TypeError("fetch failed", { cause: Object.assign(new Error(code), { code }) });
}

test("what may be sent twice is what the Python client resends", () => {
  assert.equal(repeatable("GET", "/entries/e-1"), true);
  assert.equal(repeatable("PUT", "/agents/a/core/persona", { content: "x" }), false);
  assert.equal(repeatable("DELETE", "/entries/e-1"), false);
  assert.equal(repeatable("POST", "/retrieve", { text: "q" }), true);
  assert.equal(repeatable("POST", "/agents/a-1/forget/preview", {}), true);
  assert.equal(repeatable("POST", "/entries", { content: "x" }), false);
  assert.equal(repeatable("POST", "/episodes", { id: "ep-1", text: "x" }), true);
  assert.equal(repeatable("POST", "/episodes", { text: "x" }), false);
  assert.equal(repeatable("POST", "/episodes/batch", { episodes: [{ id: "a" }, { id: "b" }] }), true);
  assert.equal(repeatable("POST", "/episodes/batch", { episodes: [{ id: "a" }, { text: "no id" }] }), false);
  assert.equal(repeatable("POST", "/episodes/batch", { episodes: [] }), false);
  assert.equal(resend(false, broken("ECONNREFUSED")), true, "never reached the service");
  assert.equal(resend(false, broken("ECONNRESET")), false, "may have run");
  assert.equal(resend(true, broken("ECONNRESET")), true);
  assert.equal(resend(true, broken("UND_ERR_HEADERS_TIMEOUT")), false, "a timeout is not resent");
  assert.equal(resend(true, Object.assign(new Error("aborted"), { name: "AbortError" })), false);
});

test("a broken connection resends a read, never a write that may have run", async () => {
  const calls: string[] = [];
  const g = new Grimoire({ url: URL, apiKey: "k", backoff: 0.001, fetch: async (r) => {
    calls.push(`${r.method} ${new globalThis.URL(r.url).pathname}`);
    if (calls.length % 2 === 1) throw broken("ECONNRESET");
    return Response.json({ key_id: "k-1", scopes: ["read"], admin: false, agent: null });
  } });
  assert.equal((await g.whoami()).key_id, "k-1");
  assert.deepEqual(calls, ["GET /agents/me", "GET /agents/me"]);
  await assert.rejects(g.learn("x"), (e: Error) => (e.cause as { code?: string }).code === "ECONNRESET");
  assert.deepEqual(calls.slice(2), ["POST /entries/batch"]);
});

test("429 and 503 are retried, then thrown with the problem details", async () => {
  const statuses = [503, 429, 200];
  const seen: (string | null)[] = [];
  const g = new Grimoire({ url: URL, apiKey: "k", backoff: 0.001, fetch: async (r) => {
    seen.push(r.headers.get("x-api-key"));
    const status = statuses.shift() ?? 429;
    return status === 200 ? Response.json({ key_id: "k-1", scopes: [], admin: false, agent: null })
      : problem(status, "over the key's limit");
  } });
  assert.equal((await g.whoami()).key_id, "k-1");
  assert.deepEqual(seen, ["k", "k", "k"]);
  const spent = await g.whoami().then(() => undefined, (e: unknown) => e);
  assert.ok(spent instanceof GrimoireError);
  assert.equal(spent.status, 429);
  assert.equal(spent.retryAfter, 0);
  assert.equal(spent.detail, "over the key's limit");
  assert.equal(spent.requestId, "r-1");
  assert.equal(seen.length, 3 + 4, "the first try and three retries");
});

test("the bookmarks an answer carries go with the next request, replacing those it was sent with", async () => {
  const sent: (string | null)[] = [];
  const answers = ["b1", "b2", ""];
  const g = new Grimoire({ url: URL, apiKey: "k", bookmark: "b0", fetch: async (r) => {
    sent.push(r.headers.get(BOOKMARK));
    const next = answers.shift();
    return Response.json([], { headers: next ? { [BOOKMARK]: next } : {} });
  } });
  for (let i = 0; i < 3; i++) await ok(g.api.GET("/episodes"));
  assert.deepEqual(sent, ["b0", "b1", "b2"]);
  assert.equal(g.bookmark, "b2");
  const unchained: (string | null)[] = [];
  const other = new Grimoire({ url: URL, causal: false, fetch: async (r) => {
    unchained.push(r.headers.get(BOOKMARK));
    return Response.json([], { headers: { [BOOKMARK]: "b9" } });
  } });
  await ok(other.api.GET("/episodes"));
  assert.deepEqual(unchained, [null], "a client that is not causal sends none");
  assert.equal(other.bookmark, undefined);
});
