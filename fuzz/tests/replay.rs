//! The fuzz targets' short regression, in the default test run without an instrumented
//! build: every target's harness is fed its seeds and every input kept under
//! `fuzz/regressions/<target>/` (crashes the fuzzer found, once fixed), twice in a row on
//! the same thread (the decoders live across inputs, as in a fuzzing run). A panic is a
//! failure; the harnesses assert what must hold (the two Avro paths agree, answers are
//! HTTP, offsets increase, ...).

use std::path::Path;

use karrow_fuzz::targets::TARGETS;

fn kept_inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("regressions")
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut inputs: Vec<(String, Vec<u8>)> = entries
        .map(|e| {
            let path = e.expect("a regression input entry").path();
            let bytes = std::fs::read(&path).expect("a regression input reads");
            (path.display().to_string(), bytes)
        })
        .collect();
    inputs.sort();
    inputs
}

#[test]
fn every_target_replays_its_seeds_and_kept_inputs() {
    let regressions = Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions");
    for entry in std::fs::read_dir(&regressions).expect("fuzz/regressions exists") {
        let name = entry
            .expect("an entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        assert!(
            TARGETS.iter().any(|t| t.name == name),
            "fuzz/regressions/{name} names no target"
        );
    }
    for target in TARGETS {
        let seeds = (target.seeds)();
        assert!(!seeds.is_empty(), "{} has no seeds", target.name);
        let kept = kept_inputs(target.name);
        for _ in 0..2 {
            for (i, seed) in seeds.iter().enumerate() {
                let outcome = std::panic::catch_unwind(|| (target.run)(seed));
                assert!(outcome.is_ok(), "{}: seed {i} failed", target.name);
            }
            for (path, input) in &kept {
                let outcome = std::panic::catch_unwind(|| (target.run)(input));
                assert!(outcome.is_ok(), "{}: {path} failed", target.name);
            }
        }
        eprintln!(
            "{}: {} seeds, {} kept inputs",
            target.name,
            seeds.len(),
            kept.len()
        );
    }
}

/// Every binary `run.sh` builds is a target here, and the other way round.
#[test]
fn run_sh_lists_every_target() {
    let script = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("run.sh"))
        .expect("run.sh reads");
    let start = script.find("TARGETS=(").expect("run.sh lists TARGETS");
    let end = start + script[start..].find(')').expect("TARGETS ends");
    let listed: Vec<&str> = script[start + "TARGETS=(".len()..end]
        .lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .flat_map(str::split_whitespace)
        .collect();
    let known: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
    assert_eq!(listed, known);
}
