// autocannon setupRequest module (workers need a file, not a function): each request takes the
// next path of the list in BENCH_PATHS_FILE (one per line), starting at a random line, so every
// request of a case asks for a different URL. Used by test/bench/read-distinct.ts.
const { readFileSync } = require("node:fs");

const paths = readFileSync(process.env.BENCH_PATHS_FILE, "utf8").split("\n").filter(Boolean);
let next = Math.floor(Math.random() * paths.length);

module.exports = (request) => {
  request.path = paths[next++ % paths.length];
  return request;
};
