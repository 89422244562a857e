// page_title is a wasmwright tool plugin in AssemblyScript, built from the
// kit in plugin-sdk/assemblyscript: it opens a page and answers its title.
import * as ww from "../../plugin-sdk/assemblyscript/index";

function myAbort(message: string | null, fileName: string | null, line: u32, column: u32): void {
  ww.abortHandler(message, fileName, line, column);
}

export function describe(): i32 {
  ww.output(ww.manifest("page_title", "1.0.0", "the title of a web page", ["browser.act"],
    `[{"name":"page_title","title":"Page title","description":"Open a URL in the session's browser tab and answer the page's title.",` +
    `"capabilities":["browser.act"],"risk":"navigate",` +
    `"input_schema":{"type":"object","properties":{"url":{"type":"string","description":"the http(s) URL to open"}},"required":["url"],"additionalProperties":false}}]`));
  return 0;
}

export function call(): i32 {
  const c = ww.readCall();
  const url = ww.stringField(c.args, "url");
  if (url == null || url.length == 0) return ww.fail("input_invalid", "url is empty: pass the page's http(s) URL");
  const r = ww.navigate(url, false);
  if (!r.ok) return r.fail();
  const title = ww.stringField(r.json, "title");
  return ww.text(title == null || title.length == 0 ? "(no title)" : title, `{"url":${ww.quote(url)}}`);
}
