// The plugin's exports, on wasm32 only. Two ways in, one dispatch
// (Plugin::handle): the Extism exports, which move data through the
// extism:host/env kernel 8 bytes per call, for any Extism host; and the
// ww_* fast path (abi.ExportFast*), which wasmwright prefers: the host
// writes the input straight into a buffer of ours and reads the output
// where ww_call's result points.

use super::abi;

#[link(wasm_import_module = "extism:host/env")]
extern "C" {
    fn input_length() -> u64;
    fn input_load_u64(offs: u64) -> u64;
    fn input_load_u8(offs: u64) -> u32;
    fn alloc(n: u64) -> u64;
    fn store_u64(offs: u64, v: u64);
    fn store_u8(offs: u64, v: u32);
    fn output_set(offs: u64, n: u64);
    fn error_set(offs: u64);
}

// The fast path's buffers: the input ww_alloc handed out, and the last
// output, kept alive until the next call. A plugin instance runs one call
// at a time on one thread.
static mut IN_BUF: Vec<u8> = Vec::new();
static mut OUT_BUF: Vec<u8> = Vec::new();

fn plugin() -> &'static super::Plugin {
    &crate::PLUGIN
}

// extism_input reads the whole call input out of the kernel.
unsafe fn extism_input() -> Vec<u8> {
    let n = input_length();
    let mut buf = Vec::with_capacity(n as usize);
    let mut i = 0u64;
    while i + 8 <= n {
        buf.extend_from_slice(&input_load_u64(i).to_le_bytes());
        i += 8;
    }
    while i < n {
        buf.push(input_load_u8(i) as u8);
        i += 1;
    }
    buf
}

// extism_store copies b into a new kernel block and returns its offset.
unsafe fn extism_store(b: &[u8]) -> u64 {
    let offs = alloc(b.len() as u64);
    let mut chunks = b.chunks_exact(8);
    let mut i = 0u64;
    for c in &mut chunks {
        store_u64(offs + i, u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]));
        i += 8;
    }
    for &x in chunks.remainder() {
        store_u8(offs + i, x as u32);
        i += 1;
    }
    offs
}

unsafe fn extism_run(op: i32) -> i32 {
    let input = if op == abi::OP_CALL || op == abi::OP_HOOK { extism_input() } else { Vec::new() };
    let (out, is_err) = plugin().handle(op, &input);
    let offs = extism_store(&out);
    output_set(offs, out.len() as u64);
    if is_err {
        // Plain Extism hosts read the error string; wasmwright reads the
        // structured error from the output.
        error_set(offs);
        return 1;
    }
    0
}

#[no_mangle]
pub unsafe extern "C" fn describe() -> i32 {
    extism_run(abi::OP_DESCRIBE)
}

#[no_mangle]
pub unsafe extern "C" fn call() -> i32 {
    extism_run(abi::OP_CALL)
}

#[no_mangle]
pub unsafe extern "C" fn hook() -> i32 {
    extism_run(abi::OP_HOOK)
}

#[no_mangle]
pub unsafe extern "C" fn self_test() -> i32 {
    extism_run(abi::OP_SELF_TEST)
}

#[no_mangle]
pub extern "C" fn ww_abi() -> i32 {
    (abi::ABI_MAJOR << 16 | abi::ABI_MINOR) as i32
}

#[no_mangle]
pub unsafe extern "C" fn ww_alloc(n: i32) -> i32 {
    if n < 0 {
        return 0;
    }
    // The host asks again when an input outgrows the buffer, or to shrink
    // it after a large one: either way a fresh buffer of exactly n bytes.
    IN_BUF = vec![0u8; n.max(1) as usize];
    IN_BUF.as_ptr() as i32
}

#[no_mangle]
pub unsafe extern "C" fn ww_call(op: i32, ptr: i32, n: i32) -> i64 {
    let mut input: &[u8] = &[];
    if n > 0 {
        if n as usize > IN_BUF.len() || ptr != IN_BUF.as_ptr() as i32 {
            let e = abi::Error::new(abi::CODE_PLUGIN_FAILED, "ww_call: input is not the buffer ww_alloc returned");
            return pack(e.to_json().into_bytes(), 1);
        }
        input = &IN_BUF[..n as usize];
    }
    let (out, is_err) = plugin().handle(op, input);
    pack(out, if is_err { 1 } else { 0 })
}

// pack keeps out alive until the next call and encodes where it is
// (abi.PackOutput): ptr<<32 | status<<31 | len.
unsafe fn pack(out: Vec<u8>, status: u64) -> i64 {
    OUT_BUF = out;
    let (p, n) = if OUT_BUF.is_empty() { (0u64, 0u64) } else { (OUT_BUF.as_ptr() as u64, OUT_BUF.len() as u64) };
    (p << 32 | (status & 1) << 31 | (n & 0x7fff_ffff)) as i64
}
