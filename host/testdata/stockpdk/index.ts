// stockpdk is a wasmwright tool plugin written with the stock Extism
// AssemblyScript PDK (@extism/as-pdk) and nothing of wasmwright's: it
// declares the host functions it calls the way any Extism plugin does, in
// Extism's convention (the wwx_ names of abi/README.md).
import { Host, LogLevel, Memory } from "@extism/as-pdk";
import { length } from "@extism/as-pdk/lib/env";

@external("extism:host/user", "wwx_browser_navigate")
declare function browserNavigate(req: u64): u64;

@external("extism:host/user", "wwx_browser_evaluate")
declare function browserEvaluate(req: u64): u64;

// Top-level code runs in the module's start function (a default asc build
// has one): it may call the Extism kernel like any other code.
Host.log(LogLevel.Info, "stockpdk: module initialised");

function myAbort(message: string | null, fileName: string | null, lineNumber: u32, columnNumber: u32): void {}

// hostCall sends a JSON request and returns the JSON response.
function hostCall(fn: (req: u64) => u64, req: string): string {
  const off = fn(Memory.allocateString(req).offset);
  return new Memory(off, length(off)).toString();
}

function output(s: string): void {
  Host.output(Uint8Array.wrap(String.UTF8.encode(s)));
}

export function describe(): i32 {
  output(`{"name":"stockpdk","version":"1.0.0","abi":{"major":1,"minor":0},
"description":"a tool written with the stock Extism AssemblyScript PDK",
"capabilities":["browser.read","browser.act","browser.eval"],
"tools":[
 {"name":"stock_open","description":"open a URL; with then_eval, evaluate 1+1 there too","capabilities":["browser.read","browser.act"],
  "input_schema":{"type":"object","properties":{"url":{"type":"string"},"then_eval":{"type":"boolean"}},"required":["url"]}},
 {"name":"stock_eval","description":"evaluate 1+1","capabilities":["browser.eval"],"input_schema":{"type":"object"}},
 {"name":"stock_accents","description":"answer non-ASCII text with the PDK's Host.outputString (it cuts it: abi/README.md)","input_schema":{"type":"object"}}]}`);
  return 0;
}

export function call(): i32 {
  // The call frame: a u32 header length, the header, the arguments.
  const input = Host.input();
  const h = load<u32>(input.dataStart);
  const args = String.UTF8.decode(input.buffer.slice(4 + h));
  if (String.UTF8.decode(input.buffer.slice(4, 4 + h)).includes(`"tool":"stock_accents"`)) {
    // The pitfall as authors meet it: the output is sized by UTF-16
    // length, so its last bytes (here the closing "}) are cut.
    Host.outputString(`{"text":"déjà vu, café"}`);
    return 0;
  }
  let evaluated = "null";
  const nav = hostCall(browserNavigate, args);
  if (args.includes(`"then_eval":true`)) {
    evaluated = hostCall(browserEvaluate, `{"expression":"1+1"}`);
  }
  output(`{"text":"stock pdk","data":{"navigate":` + nav + `,"evaluate":` + evaluated + `}}`);
  return 0;
}
