// askit is an AssemblyScript tool plugin built from the kit in
// plugin-sdk/assemblyscript, for the host's test that non-ASCII output
// arrives whole (as-pdk 1.0.0's Host.outputString sizes its output by
// UTF-16 length and cuts it; the kit outputs UTF-8 bytes).
import * as ww from "../../../plugin-sdk/assemblyscript/index";

function myAbort(message: string | null, fileName: string | null, line: u32, column: u32): void {
  ww.abortHandler(message, fileName, line, column);
}

export function describe(): i32 {
  ww.output(ww.manifest("askit", "1.0.0", "echoes text with non-ASCII added", [],
    `[{"name":"askit_echo","title":"Echo","description":"Answers the text given, then a line of non-ASCII text.",` +
    `"input_schema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}}]`));
  return 0;
}

export function call(): i32 {
  const c = ww.readCall();
  const text = ww.stringField(c.args, "text");
  return ww.text((text == null ? "" : text) + " — ünïcødé ✓ 日本語 🙂");
}
