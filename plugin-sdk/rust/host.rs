// Host calls: one import of extism:host/user per host function, in the ww_
// convention (abi/README.md): the request goes out by pointer and length,
// the answer's status and size come back, and ww_host_take copies the
// answer into a buffer of that size. The linker keeps only the imports a
// plugin calls, so a plugin's imports say which capabilities it uses.

use super::abi::{self, Error};
use super::json::{self, Value};

#[cfg(target_arch = "wasm32")]
mod imports {
    #[link(wasm_import_module = "extism:host/user")]
    extern "C" {
        pub fn ww_host_take(dst: u32);
        pub fn ww_log(level: i32, ptr: u32, n: u32);
        pub fn ww_host_info(ptr: u32, n: u32) -> u64;
        pub fn ww_events_emit(ptr: u32, n: u32) -> u64;
        pub fn ww_secrets_mask_values(ptr: u32, n: u32) -> u64;
    }
}

#[derive(Clone, Copy)]
enum Func {
    HostInfo,
    EventsEmit,
    SecretsMaskValues,
}

#[cfg(target_arch = "wasm32")]
fn invoke(f: Func, req: &[u8]) -> (Vec<u8>, bool) {
    let (p, n) = (req.as_ptr() as u32, req.len() as u32);
    // Safety: the host reads n bytes at p, which req holds for the call.
    let r = unsafe {
        match f {
            Func::HostInfo => imports::ww_host_info(p, n),
            Func::EventsEmit => imports::ww_events_emit(p, n),
            Func::SecretsMaskValues => imports::ww_secrets_mask_values(p, n),
        }
    };
    let (status, size) = ((r >> 32) as u32, r as u32);
    let mut resp = vec![0u8; size as usize];
    if size > 0 {
        // Safety: the host writes exactly the size it announced.
        unsafe { imports::ww_host_take(resp.as_mut_ptr() as u32) };
    }
    (resp, status == 0)
}

// Off wasm (rustc --test) there is no host: every call answers
// not_available, as the Go SDK's does off wasip1.
#[cfg(not(target_arch = "wasm32"))]
fn invoke(_: Func, _: &[u8]) -> (Vec<u8>, bool) {
    let e = Error::new(abi::CODE_NOT_AVAILABLE, "no host: this build runs outside the sandbox");
    (e.to_json().into_bytes(), false)
}

// call runs a host function and reads its JSON answer, or the host's
// error; an answer that is not JSON fails closed as plugin_failed.
fn call(f: Func, req: &str) -> Result<Value, Error> {
    let (out, ok) = invoke(f, req.as_bytes());
    let v = json::parse(&out);
    if ok {
        return v.map_err(|e| Error::new(abi::CODE_PLUGIN_FAILED, format!("decoding host response: {}", e)));
    }
    match v.as_ref().map(Error::from_json) {
        Ok(Ok(e)) if !e.code.is_empty() => Err(e),
        _ => Err(Error::new(abi::CODE_PLUGIN_FAILED, format!("host returned an unreadable error: {}", String::from_utf8_lossy(&out)))),
    }
}

/// host_info asks the host who is calling (abi.HostInfoResponse as JSON).
/// It needs no grant.
pub fn host_info() -> Result<Value, Error> {
    call(Func::HostInfo, "{}")
}

/// emit_event records an event; data is JSON text. Needs "events".
pub fn emit_event(kind: &str, data: &str) -> Result<(), Error> {
    let mut req = String::from("{\"kind\":");
    json::write_str(&mut req, kind);
    if !data.is_empty() {
        req.push_str(",\"data\":");
        req.push_str(data);
    }
    req.push('}');
    call(Func::EventsEmit, &req).map(|_| ())
}

/// mask_values returns the secret values filled into a session, for
/// maskers. Needs "secrets.mask".
pub fn mask_values(session: &str) -> Result<Vec<String>, Error> {
    let mut req = String::from("{\"session\":");
    json::write_str(&mut req, session);
    req.push('}');
    let v = call(Func::SecretsMaskValues, &req)?;
    let bad = || Error::new(abi::CODE_PLUGIN_FAILED, "decoding host response: values is not a list of strings");
    match v.get("values") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a.iter().map(|x| x.as_str().map(|s| s.to_string()).ok_or_else(bad)).collect(),
        Some(_) => Err(bad()),
    }
}

/// log writes msg to the host's structured log at level (abi::LOG_*).
pub fn log(level: i32, msg: &str) {
    #[cfg(target_arch = "wasm32")]
    unsafe {
        imports::ww_log(level, msg.as_ptr() as u32, msg.len() as u32)
    };
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (level, msg);
}
