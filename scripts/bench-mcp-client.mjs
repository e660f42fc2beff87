// The client of scripts/bench-mcp: drives one MCP server over stdio, the
// same way for every server, and prints its figures as one JSON object.
// Reading answers in node (not bash, which reads a pipe byte by byte) keeps
// large answers from timing the client instead of the server.
//
// usage: node bench-mcp-client.mjs CONFIG_JSON
//
// CONFIG_JSON: {"cmd": [...], "cwd": "...", "env": {...}, "tool": "memory_search" | "search_nodes",
//   "runs": 10, "oneHit": [...words], "broad": [...words], "calls": 200, "broadCalls": 20,
//   "writes": 0, "writeRounds": 1, "floorCmd": [...], "floorCwd": "...", "floorServers": [[...], [...]],
//   "floorCalls": 40, "rssSearches": 0, "firstOnly": false}
//
// floorCmd: a command, run in floorCwd, printing Go benchmark lines for
// BenchmarkWriteFileFloor and BenchmarkWriteFilesFloor (the write floors of
// P10). It runs before each of writeRounds rounds of writes and after the
// last, and the floors are the mean of those runs: the device's speed
// drifts by half within minutes, so a floor measured once, before or after
// the writes, is not the floor they met.
//
// floorServers: the commands of two servers, [one file, two files], that
// answer each request after initialize once they have written one file,
// and a file and INDEX.md, as those benchmarks do (scripts/startfloor
// -writes): the same floors taken through this client and a process's
// pipes, as memory_write is. Each makes one untimed write first, as the
// server does, and is then timed with the floors above, floorCalls calls
// (default 40) each time.
//
// firstOnly: time the cold start and the first search, nothing after
// (scripts/startfloor -facts).
import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";

const cfg = JSON.parse(process.argv[2]);
const now = () => Number(process.hrtime.bigint()) / 1e6;

function start(cmd = cfg.cmd) {
  const child = spawn(cmd[0], cmd.slice(1), {
    cwd: cfg.cwd,
    env: { ...process.env, ...(cfg.env || {}) },
    stdio: ["pipe", "pipe", "ignore"],
  });
  let buf = "";
  const waiting = [];
  const lines = [];
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buf += chunk;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (waiting.length) waiting.shift()(line);
      else lines.push(line);
    }
  });
  let exited = null;
  child.on("exit", (code) => {
    exited = code;
    for (const w of waiting.splice(0)) w(null);
  });
  const next = () => (lines.length ? Promise.resolve(lines.shift()) : new Promise((r) => waiting.push(r)));
  let id = 0;
  // request sends one request and resolves with its response line,
  // skipping notifications.
  const request = async (method, params) => {
    const myId = ++id;
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: myId, method, params }) + "\n");
    for (;;) {
      const line = exited === null || lines.length ? await next() : null;
      if (line === null) throw new Error(`${cmd.join(" ")} exited (${exited}) before answering ${method}`);
      const m = JSON.parse(line);
      if (m.id === myId) return m;
    }
  };
  const notify = (method) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method }) + "\n");
  const stop = () =>
    new Promise((r) => {
      if (exited !== null) return r();
      child.on("exit", r);
      child.stdin.end();
    });
  return { child, request, notify, stop };
}

const init = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench-mcp", version: "1" } };
const search = (s, q) => s.request("tools/call", { name: cfg.tool, arguments: { query: q } });
const median = (xs) => {
  const a = [...xs].sort((x, y) => x - y);
  return a.length % 2 ? a[(a.length - 1) / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
};
const check = (m, what) => {
  const r = m.result;
  if (!r || r.isError || !JSON.stringify(r).includes("fact-")) {
    throw new Error(`${what}: no fact in the answer: ${JSON.stringify(m).slice(0, 300)}`);
  }
};
// cpu returns the CPU time (user + system) a process has used, in ms: on a
// shared, loaded machine it says more than wall time does.
const cpu = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(f[11]) + Number(f[12])) * 1000) / (cfg.clkTck || 100);
};
const rss = (pid) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : null;
};

const out = {};

// Cold start: process start to the initialize response.
const cold = [];
for (let r = 0; r < cfg.runs; r++) {
  const t0 = now();
  const s = start();
  const m = await s.request("initialize", init);
  const t1 = now();
  if (!m.result || !m.result.protocolVersion) throw new Error("bad initialize response");
  cold.push(t1 - t0);
  await s.stop();
}
out.coldStartMs = median(cold);

// Spawn to the first search answered.
const first = [],
  firstCPU = [];
for (let r = 0; r < cfg.runs; r++) {
  const t0 = now();
  const s = start();
  await s.request("initialize", init);
  s.notify("notifications/initialized");
  const m = await search(s, cfg.oneHit[r % cfg.oneHit.length]);
  const t1 = now();
  check(m, "first search");
  first.push(t1 - t0);
  firstCPU.push(cpu(s.child.pid));
  await s.stop();
}
out.spawnToFirstSearchMs = median(first);
out.spawnToFirstSearchCPUMs = median(firstCPU);
if (cfg.firstOnly) {
  console.log(JSON.stringify(out));
  process.exit(0);
}

// Warm calls on one running server.
const s = start();
await s.request("initialize", init);
s.notify("notifications/initialized");
check(await search(s, cfg.oneHit[0]), "warm-up");
check(await search(s, cfg.broad[0]), "warm-up");
const timeCalls = async (words, n) => {
  const t0 = now(),
    c0 = cpu(s.child.pid);
  for (let c = 0; c < n; c++) check(await search(s, words[c % words.length]), "search");
  return [(now() - t0) / n, (cpu(s.child.pid) - c0) / n];
};
[out.oneHitMs, out.oneHitCPUMs] = await timeCalls(cfg.oneHit.slice(1), cfg.calls);
[out.broadMs, out.broadCPUMs] = await timeCalls(cfg.broad, cfg.broadCalls);
out.mixMs = (out.oneHitMs + out.broadMs) / 2;
out.mixCPUMs = (out.oneHitCPUMs + out.broadCPUMs) / 2;
out.rssWarmMiB = rss(s.child.pid);

// Writes, each followed by a search (foundry only), in rounds between
// measurements of the write floors. A first write, timed apart, warms what
// only writes use (a server builds its title lookup and the index's order
// on the first write that needs them), as the searches above warmed the
// search; its title shares no code word with the timed ones.
if (cfg.writes > 0) {
  {
    const t0 = now();
    const m = await s.request("tools/call", {
      name: "memory_write",
      arguments: { title: "Warm-up write made once before the timed ones", body: "Measured by bench-mcp.", type: "convention" },
    });
    out.firstWriteMs = now() - t0;
    if (!m.result || m.result.isError) throw new Error(`memory_write: ${JSON.stringify(m).slice(0, 300)}`);
  }
  const rounds = Math.max(1, cfg.writeRounds || 1);
  const floors = { one: [], two: [], onePipes: [], twoPipes: [] };
  const floorServers = [];
  for (const cmd of (cfg.floorServers || []).slice(0, 2)) {
    const srv = start(cmd);
    await srv.request("initialize", init);
    srv.notify("notifications/initialized");
    await srv.request("tools/call", { name: "write", arguments: {} });
    floorServers.push(srv);
  }
  const measureFloors = async () => {
    for (const [i, list] of [floors.onePipes, floors.twoPipes].entries()) {
      const srv = floorServers[i];
      if (!srv) continue;
      const n = cfg.floorCalls || 40;
      const t0 = now();
      for (let c = 0; c < n; c++) {
        const m = await srv.request("tools/call", { name: "write", arguments: {} });
        if (!m.result) throw new Error(`floor server: ${JSON.stringify(m).slice(0, 300)}`);
      }
      list.push((now() - t0) / n);
    }
    if (!cfg.floorCmd) return;
    const text = execFileSync(cfg.floorCmd[0], cfg.floorCmd.slice(1), { cwd: cfg.floorCwd, encoding: "utf8" });
    for (const [name, list] of [["BenchmarkWriteFileFloor", floors.one], ["BenchmarkWriteFilesFloor", floors.two]]) {
      const m = text.match(new RegExp(`^${name}\\S*\\s+\\d+\\s+([\\d.]+) ns/op`, "m"));
      if (!m) throw new Error(`floor: no ${name} line in ${JSON.stringify(text.slice(0, 300))}`);
      list.push(Number(m[1]) / 1e6);
    }
  };
  let write = 0,
    after = 0,
    cpuMs = 0;
  for (let w = 0; w < cfg.writes; w++) {
    if (w % Math.ceil(cfg.writes / rounds) === 0) await measureFloors();
    // Code words of one width, so the search after a write is a one-hit
    // search like the warm one it is compared with (kwbench1 would also
    // find kwbench10 to kwbench19 by prefix); two of them per title, so
    // no two benchmark titles are similar enough to warn about each other
    // (their title terms' Jaccard index stays below 0.6).
    const code = String(w).padStart(5, "0");
    const c0 = cpu(s.child.pid);
    const t0 = now();
    const m = await s.request("tools/call", {
      name: "memory_write",
      arguments: { title: `Benchmark stores kwbench${code} beside kwpair${code}`, body: "Measured by bench-mcp.", type: "convention" },
    });
    const t1 = now();
    if (!m.result || m.result.isError) throw new Error(`memory_write: ${JSON.stringify(m).slice(0, 300)}`);
    check(await search(s, `kwbench${code}`), "search after write");
    const t2 = now();
    cpuMs += cpu(s.child.pid) - c0;
    write += t1 - t0;
    after += t2 - t1;
  }
  await measureFloors();
  for (const srv of floorServers) await srv.stop();
  const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  out.writeMs = write / cfg.writes;
  out.searchAfterWriteMs = after / cfg.writes;
  out.writeAndSearchCPUMs = cpuMs / cfg.writes;
  out.writeFloorMs = mean(floors.one);
  out.writeFilesFloorMs = mean(floors.two);
  out.writeFloorSamplesMs = floors.one;
  out.writeFloorPipesMs = mean(floors.onePipes);
  out.writeFilesFloorPipesMs = mean(floors.twoPipes);
}

// Resident memory over many searches.
if (cfg.rssSearches > 0) {
  // Samples after each quarter, then as many searches again: a plateau is
  // the collector's headroom, a rise to the end would be a leak.
  const words = [...cfg.oneHit, ...cfg.broad];
  out.rssSamplesMiB = [];
  for (let c = 1; c <= 2 * cfg.rssSearches; c++) {
    check(await search(s, words[c % words.length]), "rss search");
    if (c % Math.ceil(cfg.rssSearches / 4) === 0) out.rssSamplesMiB.push(rss(s.child.pid));
  }
  out.rssAfterSearchesMiB = out.rssSamplesMiB[3];
  out.rssSearches = cfg.rssSearches;
}
await s.stop();
console.log(JSON.stringify(out));
