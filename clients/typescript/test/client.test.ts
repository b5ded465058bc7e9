// The client against the live service (tests/integration/test_typescript_client.py starts it and sets the
// environment): GRIMOIRE_URL, GRIMOIRE_API_KEY (an agent's key), GRIMOIRE_TEST_AGENT (its id) and
// GRIMOIRE_TEST_ADMIN_KEY (to set another agent's limits). Run with `npm test` after `npm run build`.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { BOOKMARK, Grimoire, GrimoireError, ok, pages, pagesAfter, type Retry, type Schemas, type StreamedEvent } from "@grimoire/client";

function env(name: string): string {
  const value = process.env[name];
  assert.ok(value, `${name} is not set: the pytest integration test sets it`);
  return value;
}

const url = env("GRIMOIRE_URL");
const agent = env("GRIMOIRE_TEST_AGENT");
const run = `${Date.now().toString(36)}`; // this run's ids: the service's store outlives one run

function episodes(prefix: string, n: number, type: Schemas["EpisodeType"] = "observation"): Schemas["EpisodeIn"][] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${run}-${i}`, type, text: `TypeScript client ${prefix} ${i}: the WETH borrow rate moved`,
  }));
}

async function rejects(call: Promise<unknown>): Promise<GrimoireError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof GrimoireError, `not a GrimoireError: ${String(error)}`);
    return error;
  }
  assert.fail("the call succeeded");
}

describe("the typed routes", () => {
  test("episodes written are read back, typed, with the bookmark sent back", async () => {
    const sent: (string | null)[] = [];
    const g = new Grimoire({ fetch: (r) => { sent.push(r.headers.get(BOOKMARK)); return fetch(r); } });
    const me = await g.whoami();
    assert.equal(me.agent?.id, agent);
    assert.equal(g.bookmark, undefined);
    const written = await ok(g.api.POST("/episodes/batch", { body: { episodes: episodes("rw", 2) } }));
    assert.deepEqual(written.created, [`rw-${run}-0`, `rw-${run}-1`]);
    const bookmark = g.bookmark;
    assert.ok(bookmark, "a write answers the bookmark of what it committed");
    const one = await ok(g.api.GET("/episodes/{episode_id}", { params: { path: { episode_id: written.ids[0]! } } }));
    assert.equal(sent.at(-1), bookmark, "the next request carries it");
    assert.equal(one.id, `rw-${run}-0`);
    assert.equal(one.type, "observation");
    assert.equal(one.agent_id, agent);
    assert.match(one.text ?? "", /rw 0: the WETH borrow rate moved/);
    // Another client continuing the chain reads the write too.
    const other = new Grimoire({ bookmark });
    const listed = await ok(other.api.GET("/episodes", { params: { query: { agent_id: agent, limit: 100 } } }));
    assert.ok(listed.some((e) => e.id === `rw-${run}-1`));
    const remembered = await g.remember(`TypeScript client ${run}: gas read 7 gwei at 03:10 UTC`);
    assert.equal(remembered.created.length, 1);
    const recalled = await g.recall("gas gwei", 5);
    assert.ok(recalled.results.every((hit) => hit.kind === "episode" || hit.kind === "entry"));
  });

  test("a refusal is a GrimoireError carrying the service's problem details", async () => {
    const g = new Grimoire();
    const missing = await rejects(ok(g.api.GET("/episodes/{episode_id}", {
      params: { path: { episode_id: `no-such-${run}` } } })));
    assert.equal(missing.status, 404);
    assert.equal(missing.problem?.status, 404);
    assert.equal(missing.problem?.title, "Not Found");
    assert.match(missing.detail, /no episode/);
    assert.equal(missing.problem?.instance, `/episodes/no-such-${run}`);
    assert.ok(missing.requestId, "the request's id, to find its log lines");
    const invalid = await rejects(g.recall("gas", 0));
    assert.equal(invalid.status, 422);
    assert.ok(invalid.errors.some((e) => e.loc.includes("k")), JSON.stringify(invalid.errors));
    assert.equal(invalid.message, `422: ${invalid.detail}`);
    const anonymous = await rejects(new Grimoire({ apiKey: "gk_not-a-key" }).whoami());
    assert.equal(anonymous.status, 401);
  });
});

describe("paging", () => {
  test("pages walks a list by offset and limit", async () => {
    const g = new Grimoire();
    await ok(g.api.POST("/episodes/batch", { body: { episodes: episodes("page", 7, "action") } }));
    const asked: [number, number][] = [];
    const walked: string[] = [];
    for await (const e of pages((offset, limit) => {
      asked.push([offset, limit]);
      return ok(g.api.GET("/episodes", { params: { query: { agent_id: agent, type: "action", offset, limit } } }));
    }, 3)) {
      walked.push(e.id);
    }
    const whole = await ok(g.api.GET("/episodes", { params: { query: { agent_id: agent, type: "action", limit: 1000 } } }));
    assert.deepEqual(walked, whole.map((e) => e.id));
    assert.ok(walked.length >= 7 && new Set(walked).size === walked.length);
    assert.deepEqual(asked.slice(0, 3), [[0, 3], [3, 3], [6, 3]]);
  });

  test("pagesAfter walks the events by the last id", async () => {
    const g = new Grimoire();
    const walked: string[] = [];
    for await (const e of pagesAfter((after, limit) =>
      ok(g.api.GET("/events", { params: { query: { agent_id: agent, after, limit } } })), 2)) {
      walked.push(e.id);
    }
    const whole = await ok(g.api.GET("/events", { params: { query: { agent_id: agent, limit: 1000 } } }));
    assert.ok(whole.length >= 3, "the writes above made events");
    assert.deepEqual(walked, whole.map((e) => e.id));
  });
});

describe("Retry-After", () => {
  const admin = new Grimoire({ apiKey: env("GRIMOIRE_TEST_ADMIN_KEY"), causal: false });

  async function limitedKey(id: string, limits: Schemas["LimitsIn"]): Promise<string> {
    const made = await admin.api.POST("/agents", { body: { id, name: id, clade: "clade-ts" } });
    assert.ok(made.response.status === 201 || made.response.status === 409, String(made.response.status));
    await ok(admin.api.PUT("/agents/{agent_id}/limits", { params: { path: { agent_id: id } }, body: limits }));
    const key = await ok(admin.api.POST("/agents/{agent_id}/keys", {
      params: { path: { agent_id: id } }, body: { scopes: ["read", "write"] } }));
    assert.ok(key.key);
    return key.key;
  }

  test("a 429 is retried no sooner than Retry-After, then succeeds", async () => {
    const apiKey = await limitedKey(`ts-rate-${run}`, { rate_per_s: 0.5, burst: 1 });
    const retries: Retry[] = [];
    const g = new Grimoire({ apiKey, retries: 5, onRetry: (r) => retries.push(r) });
    const both = await Promise.all([g.whoami(), g.whoami()]); // one token: the other request is refused first
    assert.deepEqual(both.map((me) => me.agent?.id), [`ts-rate-${run}`, `ts-rate-${run}`]);
    assert.ok(retries.length >= 1, "a request was refused and retried");
    for (const r of retries) {
      assert.equal(r.status, 429);
      assert.ok(r.retryAfter !== undefined && r.retryAfter >= 1, JSON.stringify(r));
      assert.ok(r.wait >= r.retryAfter, "never sooner than the service asked");
    }
  });

  test("with the retries spent, the 429 is thrown with its Retry-After", async () => {
    const apiKey = await limitedKey(`ts-spent-${run}`, { rate_per_s: 0.001, burst: 1 });
    const g = new Grimoire({ apiKey, retries: 0 });
    await g.whoami();
    const refused = await rejects(g.whoami());
    assert.equal(refused.status, 429);
    assert.ok((refused.retryAfter ?? 0) > 1, String(refused.retryAfter));
    assert.match(refused.detail, /rate limit/);
  });
});

describe("the event stream", () => {
  test("delivers an event written after it opened, and resumes after the last id", async () => {
    const g = new Grimoire();
    const stream = g.events({ type: ["GrimoireWrite"], agent_id: agent });
    await stream.opened;
    await ok(g.api.POST("/episodes/batch", { body: { episodes: episodes("sse-a", 2) } }));
    let first: StreamedEvent | undefined;
    for await (const event of stream) {
      first = event;
      break; // leaving the loop closes the stream
    }
    assert.ok(first?.id);
    assert.equal(first.event, "GrimoireWrite");
    assert.equal(first.data.type, "GrimoireWrite");
    assert.equal(first.data.agent_id, agent);
    assert.equal(first.data.payload?.["count"], 2);
    // Written while nobody listened: a stream resumed after the last id seen starts with it.
    await ok(g.api.POST("/episodes/batch", { body: { episodes: episodes("sse-b", 3) } }));
    const resumed = g.events({ type: ["GrimoireWrite"], agent_id: agent, max_seconds: 60 },
      { lastEventId: first.id });
    const next = await resumed.next();
    resumed.close();
    assert.ok(next && next.id !== first.id && next.data.id > first.data.id);
    assert.equal(next.data.payload?.["count"], 3);
  });
});
