/**
 * The flags `npm start` and `npm run start:web` take (after `--`), read strictly: a flag it does not know is refused
 * with the one it was probably meant to be, because an ignored `--prot 4000` would start on the default port and leave
 * the reader wondering why.
 */
"use strict";

/** Each flag: the option it sets and whether it takes a value. */
const FLAGS = {
  "--port": { key: "port", value: "N" },
  "--sandbox-port": { key: "sandboxPort", value: "N" },
  "--document": { key: "document", value: "url" },
  "--web": { key: "web" },
};

const USAGE =
  "npm start -- [--port N] [--sandbox-port N]   or   npm run start:web -- [--document <workbook url>] [--port N] [--sandbox-port N]";

/** Edit distance, to name the flag a mistyped one was meant to be. */
function distance(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
  return d[a.length][b.length];
}

/** The known flag closest to `given`, when it is close enough to be a slip. */
function suggestion(given) {
  const name = given.replace(/^-*/, "--").toLowerCase();
  const [best] = Object.keys(FLAGS)
    .map((f) => [f, distance(name, f)])
    .sort((x, y) => x[1] - y[1]);
  return best[1] <= Math.max(2, Math.floor(best[0].length / 3)) ? best[0] : null;
}

/**
 * `--port 4000`, `--port=4000`: the options, or an Error saying which argument is wrong and what was meant. `env`:
 * npm's, to catch `npm start --port 4000` without the `--`, where npm keeps the flag for itself (npm_config_port) and
 * passes on only "4000".
 */
function parseStartArgs(argv, env = {}) {
  const taken = Object.keys(FLAGS).filter((f) => env[`npm_config_${f.slice(2).replace(/-/g, "_")}`] !== undefined);
  if (taken.length)
    throw new Error(
      `npm kept ${taken.join(" and ")} for itself: put -- before the flags, as in npm start -- --port 4000\n  Usage: ${USAGE}`,
    );
  const out = { web: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
    const known = FLAGS[flag];
    if (!known) {
      const near = suggestion(flag);
      throw new Error(
        `unknown ${flag.startsWith("-") ? "option" : "argument"} "${arg}"${near ? `; did you mean ${near}?` : ""}\n  Usage: ${USAGE}`,
      );
    }
    if (!known.value) {
      if (inline !== undefined) throw new Error(`${flag} takes no value\n  Usage: ${USAGE}`);
      out[known.key] = true;
      continue;
    }
    const value = inline !== undefined ? inline : argv[++i];
    if (value === undefined || value === "" || value.startsWith("--"))
      throw new Error(`${flag} needs a value: ${flag} ${known.value}\n  Usage: ${USAGE}`);
    if (known.value === "N" && !/^\d+$/.test(value))
      throw new Error(`${flag} ${value} is not a port number (1-65535)\n  Usage: ${USAGE}`);
    out[known.key] = value;
  }
  return out;
}

module.exports = { parseStartArgs, FLAGS };
