// The wasmwright kit for AssemblyScript plugins, on the stock Extism PDK
// (@extism/as-pdk). It reads the call frame, writes results and coded
// errors, and calls the host's browser functions in Extism's convention
// (wwx_*, abi/README.md) with typed arguments. A function of this file
// becomes an import of the plugin only when the plugin uses it, and the
// host links a plugin only for the capabilities its imports need.
import { Host, Memory } from "@extism/as-pdk";
import { error_set, length } from "@extism/as-pdk/lib/env";

// The ABI this kit speaks: put it in the manifest (manifest()).
export const ABI_MAJOR = 1;
export const ABI_MINOR = 0;
// The browser protocol the typed browser calls speak, versioned apart
// from the ABI.
export const BROWSER_MAJOR = 1;
export const BROWSER_MINOR = 0;

@external("extism:host/user", "wwx_host_info")
declare function wwxHostInfo(req: u64): u64;
@external("extism:host/user", "wwx_browser_navigate")
declare function wwxNavigate(req: u64): u64;
@external("extism:host/user", "wwx_browser_snapshot")
declare function wwxSnapshot(req: u64): u64;
@external("extism:host/user", "wwx_browser_act")
declare function wwxAct(req: u64): u64;
@external("extism:host/user", "wwx_browser_evaluate")
declare function wwxEvaluate(req: u64): u64;

// quote returns s as a JSON string.
export function quote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c == 0x22) out += '\\"';
    else if (c == 0x5c) out += "\\\\";
    else if (c < 0x20) out += "\\u" + (c < 16 ? "000" : "00") + c.toString(16);
    else out += String.fromCharCode(c);
  }
  return out + '"';
}

// stringField returns the string value of the first "key": "..." in json
// (unescaping \" \\ \n \t \/), or null. Enough for flat arguments and the
// host's responses; use a JSON library for more.
export function stringField(json: string, key: string): string | null {
  const k = quote(key);
  let i = json.indexOf(k);
  while (i >= 0) {
    let j = i + k.length;
    while (j < json.length && (json.charAt(j) == " " || json.charAt(j) == ":")) j++;
    if (j > i + k.length && json.charAt(j) == '"') {
      let out = "";
      for (j++; j < json.length; j++) {
        const c = json.charAt(j);
        if (c == '"') return out;
        if (c == "\\" && j + 1 < json.length) {
          j++;
          const e = json.charAt(j);
          out += e == "n" ? "\n" : e == "t" ? "\t" : e;
        } else out += c;
      }
      return null;
    }
    i = json.indexOf(k, i + 1);
  }
  return null;
}

// Call is one tool call: the tool's name, the session and the arguments
// (raw JSON, already checked against the tool's input schema by the host).
export class Call {
  constructor(public tool: string, public session: string, public args: string) {}
}

// readCall decodes the call frame: a u32 header length, the header JSON,
// then the arguments.
export function readCall(): Call {
  const input = Host.input();
  const n = load<u32>(input.dataStart);
  const header = String.UTF8.decode(input.buffer.slice(4, 4 + n));
  const args = String.UTF8.decode(input.buffer.slice(4 + n));
  const tool = stringField(header, "tool");
  const session = stringField(header, "session");
  return new Call(tool == null ? "" : tool, session == null ? "" : session, args);
}

// output writes raw JSON as the export's output (Host.output, not
// outputString, which truncates non-ASCII text in as-pdk 1.0.0).
export function output(json: string): void {
  Host.output(Uint8Array.wrap(String.UTF8.encode(json)));
}

// manifest returns describe's output: tools is the JSON array of tools,
// capabilities what the plugin's host calls need.
export function manifest(name: string, version: string, description: string, capabilities: string[], tools: string): string {
  const caps = capabilities.map<string>((c: string) => quote(c)).join(",");
  return `{"name":${quote(name)},"version":${quote(version)},"abi":{"major":${ABI_MAJOR},"minor":${ABI_MINOR}},` +
    `"protocols":{"browser":{"major":${BROWSER_MAJOR},"minor":${BROWSER_MINOR}}},` +
    `"description":${quote(description)},"capabilities":[${caps}],"tools":${tools}}`;
}

// text returns status 0 with a Result holding text (and data, raw JSON,
// when given).
export function text(t: string, data: string = ""): i32 {
  output(`{"text":${quote(t)}` + (data.length > 0 ? `,"data":${data}` : "") + "}");
  return 0;
}

// fail returns status 1 with a coded error (codes: abi/errors.go), or the
// error a host function answered.
export function fail(code: string, message: string): i32 {
  output(`{"code":${quote(code)},"message":${quote(message)}}`);
  return 1;
}

// Response is what a host function answered: its JSON, or a coded error.
export class Response {
  constructor(public json: string) {}
  get ok(): bool { return !this.json.startsWith('{"error"'); }
  get code(): string { const c = stringField(this.json, "code"); return this.ok || c == null ? "" : c; }
  get message(): string { const m = stringField(this.json, "message"); return this.ok || m == null ? "" : m; }
  // fail passes the host's error on as the call's error.
  fail(): i32 { return fail(this.code, this.message); }
}

function hostCall(fn: (req: u64) => u64, req: string): Response {
  const mem = Memory.allocateString(req);
  const off = fn(mem.offset);
  mem.free();
  const resp = new Memory(off, length(off));
  const s = resp.toString();
  resp.free();
  return new Response(s);
}

// hostInfo: facts about the host (no grant).
export function hostInfo(): Response { return hostCall(wwxHostInfo, "{}"); }

// navigate loads url in the session's current tab (browser.act).
export function navigate(url: string, snapshot: bool = true): Response {
  return hostCall(wwxNavigate, `{"url":${quote(url)}` + (snapshot ? "}" : `,"no_snapshot":true}`));
}

// snapshot returns the ARIA snapshot of the current tab (browser.read).
export function snapshot(): Response { return hostCall(wwxSnapshot, "{}"); }

// click clicks the element ref names in the latest snapshot (browser.act).
export function click(ref: string): Response {
  return hostCall(wwxAct, `{"action":"click","ref":${quote(ref)}}`);
}

// type types text into the element ref names (browser.act).
export function typeText(ref: string, text: string, submit: bool = false): Response {
  return hostCall(wwxAct, `{"action":"type","ref":${quote(ref)},"text":${quote(text)}` + (submit ? `,"submit":true}` : "}"));
}

// evaluate runs a JavaScript expression in the page (browser.eval).
export function evaluate(expression: string): Response {
  return hostCall(wwxEvaluate, `{"expression":${quote(expression)}}`);
}

// abortHandler reports an AssemblyScript abort as the call's error: use it
// from the function your asconfig.json names in "use": ["abort=..."].
export function abortHandler(message: string | null, fileName: string | null, line: u32, column: u32): void {
  const m = Memory.allocateString(`${message == null ? "abort" : message} at ${fileName == null ? "?" : fileName}:${line}:${column}`);
  error_set(m.offset);
}
