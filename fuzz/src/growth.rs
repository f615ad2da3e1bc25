//! The check that reading time grows no faster than the input: each shape below (the worst known for a JSON
//! reader and for docmodel's own passes: many fields, duplicates, deep nesting, long escaped strings, long
//! keys, migration of large documents) is built at a base size and at 16 times it, read (and written when it
//! reads), and the time per byte of the two compared. A linear reader keeps the ratio near 1 (caches make the
//! larger somewhat slower); a quadratic pass makes it about 16. It is a ratio of two timings on one machine,
//! so the machine's speed does not matter; each is the median of several samples, so a stray pause does not.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use docmodel::{Doc, Key};

use crate::models::{Country, DomainUser, Profile, SkipProfile, TypedUser, User};

/// How much larger the large input is than the base one.
pub const FACTOR: usize = 16;

/// A shape of input: how to build it with `n` repetitions, and what reads it.
pub struct Shape {
    pub name: &'static str,
    pub build: fn(usize) -> Vec<u8>,
    /// Reads the input, and says whether it read.
    pub read: fn(&[u8]) -> bool,
}

/// A user whose body ends with `tail` (which starts with a comma, or is empty).
fn user(schema: &str, tail: &str) -> Vec<u8> {
    format!(
        r#"{{"_type":"user","_schema":"{schema}","_ver":1,"userId":1,"firstName":"Joe","lastName":"Smith","phones":[],"name":"Joe Smith","phone":"1"{tail}}}"#
    )
    .into_bytes()
}

fn repeat(n: usize, item: impl Fn(usize) -> String) -> String {
    (0..n).fold(String::new(), |mut out, i| {
        out.push_str(&item(i));
        out
    })
}

fn read_write<T: crate::Model>(data: &[u8]) -> bool {
    match Doc::<T>::from_slice(data) {
        Ok(doc) => std::hint::black_box(doc.to_vec()).is_ok(),
        Err(_) => false,
    }
}

/// Every shape checked.
pub const SHAPES: &[Shape] = &[
    Shape {
        name: "many unknown fields",
        build: |n| user("3.0", &repeat(n, |i| format!(r#","unknown{i}":[{i},"x"]"#))),
        read: read_write::<User>,
    },
    Shape {
        name: "one unknown field repeated",
        build: |n| user("3.0", &repeat(n, |_| r#","unknown":[1,"x"]"#.to_owned())),
        read: read_write::<User>,
    },
    Shape {
        name: "an envelope field repeated",
        build: |n| user("3.0", &repeat(n, |_| r#","_ver":1"#.to_owned())),
        read: read_write::<User>,
    },
    Shape {
        name: "a known field repeated",
        build: |n| user("3.0", &repeat(n, |_| r#","firstName":"Joe""#.to_owned())),
        read: read_write::<User>,
    },
    Shape {
        name: "many phones",
        build: |n| {
            let phones = repeat(n, |i| format!(r#"{{"type":"home","number":"{i}"}},"#));
            format!(
                r#"{{"_type":"user","_schema":"3.0","userId":1,"firstName":"J","lastName":"S","phones":[{}]}}"#,
                phones.trim_end_matches(',')
            )
            .into_bytes()
        },
        read: read_write::<User>,
    },
    Shape {
        name: "long string of escapes",
        build: |n| {
            let text = repeat(n, |_| r#"\"\\\n\u00e9\ud83d\ude00a"#.to_owned());
            format!(
                r#"{{"_type":"user","_schema":"3.0","userId":1,"firstName":"{text}","lastName":"{text}","phones":[]}}"#
            )
            .into_bytes()
        },
        read: read_write::<User>,
    },
    Shape {
        name: "deeply nested unknown values",
        build: |n| {
            let nested = format!("{}1{}", "[{\"a\":".repeat(60), "}]".repeat(60));
            user("3.0", &repeat(n, |i| format!(r#","deep{i}":{nested}"#)))
        },
        read: read_write::<User>,
    },
    Shape {
        name: "nesting past the recursion limit",
        build: |n| user("3.0", &format!(r#","deep":{}"#, "[".repeat(n * 8))),
        read: read_write::<User>,
    },
    Shape {
        name: "1.0 user with many unknown fields, JSON chain",
        build: |n| {
            user(
                "1.0",
                &repeat(n, |i| format!(r#","unknown{i}":{{"v":{i}}}"#)),
            )
        },
        read: read_write::<User>,
    },
    Shape {
        name: "1.0 user with many unknown fields, typed chain",
        build: |n| {
            user(
                "1.0",
                &repeat(n, |i| format!(r#","unknown{i}":{{"v":{i}}}"#)),
            )
        },
        read: read_write::<TypedUser>,
    },
    Shape {
        name: "1.0 user with a long name",
        build: |n| {
            format!(
                r#"{{"_type":"user","_schema":"1.0","userId":1,"name":"{}","phone":"1"}}"#,
                "Jo ".repeat(n * 4)
            )
            .into_bytes()
        },
        read: read_write::<User>,
    },
    Shape {
        name: "meta layout with many unknown fields in and out of meta",
        build: |n| {
            let fields = repeat(n, |i| format!(r#","u{i}":"{i}""#));
            format!(
                r#"{{"meta":{{"type":"profile","schema":"1.2","ver":1,"modified":"2018-12-14T03:45:24.478Z"{fields}}},"username":"ann"{fields}}}"#
            )
            .into_bytes()
        },
        read: read_write::<Profile>,
    },
    Shape {
        name: "1.0 country with many region codes",
        build: |n| {
            let codes = repeat(n, |i| format!("R{i},,"));
            format!(r#"{{"_type":"country","_schema":"1.0","code":"US","geocode":"","regions":"{codes}"}}"#)
                .into_bytes()
        },
        read: read_write::<Country>,
    },
    Shape {
        name: "skip_empty with a large map",
        build: |n| {
            let social = repeat(n, |i| format!(r#""s{i}":"","#));
            format!(
                r#"{{"_type":"user","_schema":"1.0","userId":7,"logins":0,"social":{{{}}}}}"#,
                social.trim_end_matches(',')
            )
            .into_bytes()
        },
        read: read_write::<SkipProfile>,
    },
    Shape {
        name: "long key part in a document",
        build: |n| {
            format!(
                r#"{{"meta":{{"type":"profile","schema":"1.2"}},"username":"{}"}}"#,
                "a".repeat(n * 16)
            )
            .into_bytes()
        },
        read: read_write::<Profile>,
    },
    Shape {
        name: "key of delimiter characters",
        build: |n| format!("user::{}::1", ":a".repeat(n * 8)).into_bytes(),
        read: |data| {
            let text = std::str::from_utf8(data).unwrap();
            std::hint::black_box(Key::<DomainUser>::parse(text)).is_ok()
        },
    },
    Shape {
        name: "key of many segments",
        build: |n| format!("user::{}", "a::".repeat(n * 8)).into_bytes(),
        read: |data| {
            let text = std::str::from_utf8(data).unwrap();
            std::hint::black_box(Key::<DomainUser>::parse(text)).is_ok()
        },
    },
];

/// The median time per byte of reading `data`, in nanoseconds.
fn time_per_byte(read: fn(&[u8]) -> bool, data: &[u8]) -> f64 {
    // Enough repetitions that one sample takes about 5 ms.
    let start = Instant::now();
    read(data);
    let once = start.elapsed().max(Duration::from_nanos(100));
    let repetitions = (Duration::from_millis(5).as_nanos() / once.as_nanos()).clamp(1, 100_000);
    let mut samples: Vec<f64> = (0..9)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..repetitions {
                std::hint::black_box(read(std::hint::black_box(data)));
            }
            start.elapsed().as_nanos() as f64 / repetitions as f64 / data.len() as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// One shape's measurement.
pub struct Growth {
    pub name: &'static str,
    pub small_bytes: usize,
    pub large_bytes: usize,
    /// Whether the large input reads (`false`: the time is that of the error).
    pub reads: bool,
    /// Nanoseconds per byte at the base size and at `FACTOR` times it.
    pub small_ns_per_byte: f64,
    pub large_ns_per_byte: f64,
}

impl Growth {
    pub fn ratio(&self) -> f64 {
        self.large_ns_per_byte / self.small_ns_per_byte
    }
}

/// Measures `shape` at `n` and `FACTOR * n` repetitions.
pub fn measure(shape: &Shape, n: usize) -> Growth {
    let small = (shape.build)(n);
    let large = (shape.build)(n * FACTOR);
    Growth {
        name: shape.name,
        small_bytes: small.len(),
        large_bytes: large.len(),
        reads: (shape.read)(&large),
        small_ns_per_byte: time_per_byte(shape.read, &small),
        large_ns_per_byte: time_per_byte(shape.read, &large),
    }
}

/// A line of the report.
pub fn describe(growth: &Growth) -> String {
    let mut line = String::new();
    let _ = write!(
        line,
        "{:<58} {:>7} B {:>7.2} ns/B   {:>8} B {:>7.2} ns/B   x{:<5.2} {}",
        growth.name,
        growth.small_bytes,
        growth.small_ns_per_byte,
        growth.large_bytes,
        growth.large_ns_per_byte,
        growth.ratio(),
        if growth.reads { "reads" } else { "refused" }
    );
    line
}
