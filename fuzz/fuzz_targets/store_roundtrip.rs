#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| docmodel_fuzz::store_roundtrip(data));
