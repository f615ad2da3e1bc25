//! Fails when reading some shape of input takes more time per byte at 16 times the size than `MAX_RATIO`
//! times its time per byte at the base size: a pass that grows faster than its input. Run in release:
//! `cargo run --release --manifest-path fuzz/Cargo.toml --example growth` (`fuzz/run` does).

use docmodel_fuzz::growth::{FACTOR, SHAPES, describe, measure};

/// A linear reader measures about 1 to 1.5 here; a quadratic pass about `FACTOR` = 16.
const MAX_RATIO: f64 = 4.0;

/// The base size's repetitions: inputs of a few kilobytes, and 16 times that.
const BASE: usize = 64;

fn main() {
    println!(
        "{:<58} {:>20}   {:>20}   ratio",
        "shape",
        "base",
        format!("{FACTOR}x"),
    );
    let mut failed = Vec::new();
    for shape in SHAPES {
        let mut growth = measure(shape, BASE);
        // A ratio over the limit is measured again before it fails: one noisy pair is not a finding.
        for _ in 0..2 {
            if growth.ratio() <= MAX_RATIO {
                break;
            }
            growth = measure(shape, BASE);
        }
        println!("{}", describe(&growth));
        if growth.ratio() > MAX_RATIO {
            failed.push(shape.name);
        }
    }
    if !failed.is_empty() {
        eprintln!(
            "time per byte grows more than {MAX_RATIO}x from the base size to {FACTOR}x it: {}",
            failed.join(", ")
        );
        std::process::exit(1);
    }
}
