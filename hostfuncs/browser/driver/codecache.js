// Written by wasmwright (hostfuncs/browser/driver, codecache.js): keep V8's
// compiled code of playwright-core's two large bundles (coreBundle.js and
// utilsBundle.js, 6.5 MB of source) between driver starts. Node 20 has no
// compile cache of its own (NODE_COMPILE_CACHE came in 22): without this,
// every driver start parses and compiles them again, about 40% of the
// driver's start in CPU, on the way to every first browser call.
//
// The cache is only ever a hint: V8 checks each file's data against its
// own version, its flags and the source's length, and a file it rejects
// (or cannot read) means an ordinary compile, as node's own, and a new
// file. A bundle's files are named by its inode, size and change time and
// node's flags: a rewritten bundle never meets the code of the old one.
// Files are written whole (a temporary name, then a rename), by the driver
// that compiled without one, when it exits or after CACHE_AFTER_MS,
// whichever comes first: so the data holds what the driver compiled while
// it served (launch, pages, snapshots), not only the bundles' top level.
// The folder is as trusted as the driver's own code beside it.
(function codeCache(core, dir) {
  const Module = require("module");
  const vm = require("vm");
  const fs = require("fs");
  const path = require("path");
  const crypto = require("crypto");
  const BIG = 256 << 10; // smaller files compile in less than reading data would save
  const CACHE_AFTER_MS = 20000;
  // The flags node runs with are part of what V8 checks: each set of
  // flags (NODE_OPTIONS the host gives, say) keeps its own files.
  const flags = JSON.stringify([process.version, process.arch, process.execArgv, process.env.NODE_OPTIONS || ""]);
  // Node names a module by its real path.
  try {
    core = fs.realpathSync(core);
  } catch {}
  const pending = [];
  // The bundles are read and wrapped here, not by node's loader: the
  // wrapped source is made from the file's bytes in one string, so no
  // second copy of a bundle (read by node, then wrapped) is left in the
  // heap as garbage, and the buffers are let go before the bundle runs:
  // kept alive through its run they reach the old generation, which an
  // idle driver does not collect (its USS was 9-11 MB more).
  const load = Module._extensions[".js"];
  Module._extensions[".js"] = function (mod, filename) {
    const script = filename.startsWith(core + path.sep) && compiled(filename);
    if (!script) return load(mod, filename);
    const fn = script.runInThisContext({ displayErrors: true });
    fn.call(mod.exports, mod.exports, requireOf(mod), mod, filename, path.dirname(filename));
  };

  // compiled is filename's module wrapper, compiled with its cached code
  // when V8 takes it; false for a file left to node (small, #!, BOM).
  function compiled(filename) {
    const st = fs.statSync(filename, { bigint: true });
    if (st.size < BIG) return false;
    const bytes = fs.readFileSync(filename);
    if (bytes[0] === 0x23 || bytes[0] === 0xef) return false;
    // V8 checks only the source's length against the data: the file is
    // told by its inode and change time (which any write moves), not by
    // hashing 6.5 MB at every start.
    const id = [flags, filename, st.dev, st.ino, st.size, st.ctimeNs, st.mtimeNs].join("\0");
    const key = crypto.createHash("sha256").update(id).digest("hex").slice(0, 32);
    const file = path.join(dir, path.basename(filename) + "." + key);
    let cachedData;
    try {
      cachedData = fs.readFileSync(file);
    } catch {}
    const [head, tail] = Module.wrapper;
    const script = new vm.Script(Buffer.concat([Buffer.from(head), bytes, Buffer.from(tail)]).toString("utf8"), {
      filename,
      cachedData,
      importModuleDynamically: vm.constants && vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    const hit = cachedData !== undefined && !script.cachedDataRejected;
    if (!hit) pending.push({ script, file });
    // The host logs the driver's stderr at debug level.
    process.stderr.write("wasmwright: code cache: " + path.basename(filename) + (hit ? " loaded" : cachedData ? " rejected" : " none") + "\n");
    return script;
  }

  // requireOf is the require a module's code gets, as node makes it.
  function requireOf(mod) {
    const require = (id) => mod.require(id);
    require.resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
    require.resolve.paths = (request) => Module._resolveLookupPaths(request, mod);
    require.main = process.mainModule;
    require.extensions = Module._extensions;
    require.cache = Module._cache;
    return require;
  }

  function save() {
    const todo = pending.splice(0);
    if (todo.length === 0) return;
    try {
      fs.mkdirSync(dir, { recursive: true });
      for (const { script, file } of todo) {
        const tmp = file + ".tmp-" + process.pid;
        fs.writeFileSync(tmp, script.createCachedData());
        fs.renameSync(tmp, file);
      }
    } catch (e) {
      // A folder we cannot write: every start compiles, as without us.
      process.stderr.write("wasmwright: playwright-core's code cache not written: " + e.message + "\n");
    }
  }
  process.on("exit", save);
  setTimeout(save, CACHE_AFTER_MS).unref();
})(CORE, CACHE_DIR);
