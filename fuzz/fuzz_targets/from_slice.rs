#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| docmodel_fuzz::from_slice(data));
