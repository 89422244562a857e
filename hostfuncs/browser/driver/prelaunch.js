// Written by wasmwright (hostfuncs/browser/driver, prelaunch.js): start
// Chromium while the driver itself starts. playwright-core launches the
// browser only when asked, after the driver has loaded (0.4-0.8 s here),
// and a first browser call waits for both in turn. When the host is about
// to launch (WASMWRIGHT_PRELAUNCH names its launch options' key and
// executable), this spawns the command playwright-core spawned for that
// key last time, at once, and hands that process to playwright-core's own
// spawn when it asks for the very same command: same executable, same
// arguments (the profile folder aside: each launch has a fresh, empty
// one), same environment, same stdio. Everything after the spawn (the
// DevTools pipe, the launch's checks, the close) is playwright-core's, as
// without this.
//
// The kept command is only a hint: a spawn asked for with anything else
// gets a process of its own, the early one is killed and its profile
// removed, and the command asked for is kept for the next start. So is an
// early process not asked for within UNUSED_MS, one that has exited, and
// one left when the driver exits. The folder is as trusted as the
// driver's own code beside it; the command must name the executable the
// host asked for.
(function prelaunch(dir) {
  const ask = process.env.WASMWRIGHT_PRELAUNCH;
  delete process.env.WASMWRIGHT_PRELAUNCH; // Chromium's environment is the driver's, as without us
  if (!ask) return;
  const cp = require("child_process");
  const fs = require("fs");
  const os = require("os");
  const path = require("path");
  const UNUSED_MS = 30000;
  const PROFILE = "playwright_chromiumdev_profile-"; // playwright-core's name for a launch's profile
  const UDD = "--user-data-dir=";
  const MARK = UDD + "\0profile"; // the profile's place in a kept command
  const STDIO = ["ignore", "pipe", "pipe", "pipe", "pipe"];
  const say = (what) => process.stderr.write("wasmwright: early launch: " + what + "\n");
  let key, executable;
  try {
    ({ key, executable } = JSON.parse(ask));
  } catch {}
  if (typeof key !== "string" || !/^[0-9a-f]{16,64}$/.test(key) || typeof executable !== "string") return;
  const file = path.join(dir, key + ".json");
  const spawn = cp.spawn;

  // shape is a spawn's arguments with its profile folder marked, or null
  // for a spawn that is not a launch of a fresh profile over the DevTools
  // pipe (a persistent context's, any other program's).
  function shape(command, args, options) {
    if (typeof command !== "string" || !Array.isArray(args) || !options || !sameList(options.stdio, STDIO)) return null;
    if (!args.includes("--remote-debugging-pipe")) return null;
    const profiles = args.filter((a) => typeof a === "string" && a.startsWith(UDD));
    if (profiles.length !== 1) return null;
    const p = profiles[0].slice(UDD.length);
    if (path.dirname(p) !== os.tmpdir() || !path.basename(p).startsWith(PROFILE)) return null;
    return args.map((a) => (a === profiles[0] ? MARK : a));
  }

  function sameList(a, b) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i]);
  }

  function sameEnv(a, b) {
    const ka = Object.keys(a), kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && a[k] === b[k]);
  }

  // keep writes the command asked for as the next start's hint, whole.
  function keep(command, args) {
    const text = JSON.stringify({ command, args });
    try {
      if (fs.readFileSync(file, "utf8") === text) return;
    } catch {}
    try {
      fs.mkdirSync(dir, { recursive: true });
      const tmp = file + ".tmp-" + process.pid;
      fs.writeFileSync(tmp, text);
      fs.renameSync(tmp, file);
    } catch (e) {
      say("not kept: " + e.message);
    }
  }

  let early = null;
  try {
    const hint = JSON.parse(fs.readFileSync(file, "utf8"));
    if (hint && hint.command === executable && Array.isArray(hint.args) && hint.args.every((a) => typeof a === "string") &&
      hint.args.filter((a) => a === MARK).length === 1 && hint.args.includes("--remote-debugging-pipe")) {
      const profile = fs.mkdtempSync(path.join(os.tmpdir(), PROFILE));
      const env = Object.assign({}, process.env);
      const child = spawn.call(cp, hint.command, hint.args.map((a) => (a === MARK ? UDD + profile : a)), {
        detached: process.platform !== "win32",
        env: process.env,
        stdio: STDIO,
      });
      early = { child, profile, command: hint.command, args: hint.args, env, closed: false };
      const e = early;
      child.on("error", () => {});
      child.once("close", () => {
        e.closed = true;
        fs.rm(profile, { recursive: true, force: true }, () => {});
      });
      setTimeout(() => drop("unused"), UNUSED_MS).unref();
      process.on("exit", () => {
        if (!e.closed) kill(e);
        try {
          fs.rmSync(profile, { recursive: true, force: true });
        } catch {}
      });
    } else {
      say("none");
    }
  } catch (e) {
    say(e.code === "ENOENT" ? "none" : "failed: " + e.message);
  }

  function kill(e) {
    try {
      process.kill(process.platform !== "win32" ? -e.child.pid : e.child.pid, "SIGKILL");
    } catch {}
  }

  // drop kills the early process when nothing took it.
  function drop(why) {
    const e = early;
    if (!e) return;
    early = null;
    say(why + " (pid " + e.child.pid + ")");
    if (e.child.pid && !e.closed) kill(e);
    else if (!e.child.pid) fs.rm(e.profile, { recursive: true, force: true }, () => {});
  }

  cp.spawn = function (command, args, options) {
    const asked = shape(command, args, options);
    if (asked === null) return spawn.apply(this, arguments);
    const e = early;
    early = null;
    if (e && e.command === command && sameList(e.args, asked) && options.detached === (process.platform !== "win32") &&
      options.cwd === undefined && options.shell === undefined && options.env && sameEnv(options.env, e.env) &&
      e.child.pid && !e.closed && e.child.exitCode === null && e.child.signalCode === null) {
      say("taken (pid " + e.child.pid + ")");
      return e.child;
    }
    if (e) {
      early = e;
      drop(e.closed || e.child.exitCode !== null || e.child.signalCode !== null ? "it had exited" : "not the launch asked for");
    }
    keep(command, asked);
    return spawn.apply(this, arguments);
  };
})(LAUNCH_DIR);
