// The compactor natively: make bench's peer of the same compaction through
// the sandbox (internal/bench/pipeline). It compacts every snapshot of the
// folder $WASMWRIGHT_SNAPSHOTS names (the pipeline's render cache: JSON
// files with a "snapshot") once per round, prints the median round, and
// hands it to make bench's summary ($WASMWRIGHT_BENCH_ROWS, the row
// internal/bench/rows reads). scripts/bench.sh builds and runs it:
//
//   /usr/bin/rustc -O --edition 2021 -o build/rust/snapcompact_bench plugins/snapcompact/bench.rs
//   WASMWRIGHT_SNAPSHOTS=build/snapshots build/rust/snapcompact_bench

#[path = "../../plugin-sdk/rust/mod.rs"]
#[allow(dead_code)]
mod sdk;

#[allow(dead_code)]
mod aria;
#[allow(dead_code)]
mod compact;
mod goquote;
mod isprint;

use std::io::Write;
use std::time::{Duration, Instant};

fn snapshots(dir: &str) -> Result<Vec<String>, String> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {}", dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().map_or(false, |x| x == "json"))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for n in names {
        let b = std::fs::read(&n).map_err(|e| format!("{}: {}", n.display(), e))?;
        let v = sdk::json::parse(&b).map_err(|e| format!("{}: {}", n.display(), e))?;
        if let Some(s) = v.get("snapshot").and_then(|s| s.as_str()) {
            if !s.is_empty() {
                out.push(s.to_string());
            }
        }
    }
    Ok(out)
}

fn main() {
    let dir = std::env::var("WASMWRIGHT_SNAPSHOTS").unwrap_or_default();
    if dir.is_empty() {
        eprintln!("WASMWRIGHT_SNAPSHOTS is unset: name a folder of rendered pages (make bench passes build/snapshots)");
        std::process::exit(2);
    }
    let snaps = match snapshots(&dir) {
        Ok(s) if !s.is_empty() => s,
        r => {
            eprintln!("no snapshots in {} ({:?}): run go -C internal/bench run ./pipeline first, which renders them", dir, r.err());
            std::process::exit(1);
        }
    };
    let o = compact::Options::default();
    let mut rounds: Vec<Duration> = Vec::new();
    // The output's length is summed and printed, so no round is optimised
    // away (black_box is not stable in Rust 1.63).
    let mut bytes = 0usize;
    for _ in 0..15 {
        let t0 = Instant::now();
        for s in &snaps {
            bytes += compact::compact_snapshot(s, &o).len();
        }
        rounds.push(t0.elapsed());
    }
    rounds.sort();
    let ms = rounds[rounds.len() / 2].as_secs_f64() * 1000.0;
    println!("snapcompact natively: {} snapshots ({} bytes out per round), median round {:.2} ms/round", snaps.len(), bytes / 15, ms);
    if let Ok(path) = std::env::var("WASMWRIGHT_BENCH_ROWS") {
        if !path.is_empty() {
            let line = format!("{{\"measure\":\"compaction of the corpus snapshots\",\"side\":\"native\",\"value\":{},\"source\":\"snapcompact\"}}\n", ms);
            let r = std::fs::OpenOptions::new().create(true).append(true).open(&path).and_then(|mut f| f.write_all(line.as_bytes()));
            if let Err(e) = r {
                eprintln!("rows: snapcompact native row not recorded: {}", e);
            }
        }
    }
}
